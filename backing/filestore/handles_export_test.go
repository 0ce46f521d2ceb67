package filestore

// SetMaxHandles bounds the handles a store keeps, for the tests of
// package filestore_test; it returns the function that restores the bound.
func SetMaxHandles(n int) (restore func()) {
	old := maxHandles
	maxHandles = n
	return func() { maxHandles = old }
}

// SetSealFrame makes sealed frames of about n bytes, for the tests of
// package filestore_test; it returns the function that restores the size.
func SetSealFrame(n int) (restore func()) {
	old := sealFrame
	sealFrame = n
	return func() { sealFrame = old }
}
