package filestore

// SetMaxHandles bounds the handles a store keeps, for the tests of
// package filestore_test; it returns the function that restores the bound.
func SetMaxHandles(n int) (restore func()) {
	old := maxHandles
	maxHandles = n
	return func() { maxHandles = old }
}
