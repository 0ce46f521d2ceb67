package filestore

import (
	"syscall"
	"testing"
	"time"
)

// The store's facts come from methods: its filesystem's space as statfs
// gives it, when the names last changed, when meta.json did.
func TestStoreFacts(t *testing.T) {
	st := openStore(t)
	sp, err := st.Space()
	if err != nil {
		t.Fatal(err)
	}
	var want syscall.Statfs_t
	if err := syscall.Statfs(st.Root(), &want); err != nil {
		t.Fatal(err)
	}
	if sp.BlockSize == 0 || sp.Blocks != want.Blocks || sp.Files != want.Files {
		t.Errorf("space = %+v, statfs = %+v", sp, want)
	}
	if st.Location() != st.Root() {
		t.Errorf("location %q, root %q", st.Location(), st.Root())
	}
	before := time.Now().Add(-time.Second) // mtimes may lag the clock by a tick
	if got := st.NamesChanged(); got.IsZero() {
		t.Errorf("names changed at the zero time")
	}
	s := newSession(t, st, "s")
	if got := st.NamesChanged(); got.Before(before) {
		t.Errorf("names changed at %v, before the session was made (%v)", got, before)
	}
	if mt, err := s.MetaModTime(); err != nil || mt.Before(before) {
		t.Errorf("meta.json changed at %v, %v", mt, err)
	}
}
