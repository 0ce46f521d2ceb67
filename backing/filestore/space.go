package filestore

import (
	"os"
	"syscall"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// Space reports the space of the filesystem the store's folder is on.
// Store facts come from methods, not paths, so that a caller needs to know
// nothing of where or how an engine keeps its data.
func (st *Store) Space() (backing.Space, error) {
	var s syscall.Statfs_t
	if err := syscall.Statfs(st.root, &s); err != nil {
		return backing.Space{}, &os.PathError{Op: "statfs", Path: st.root, Err: err}
	}
	unit := s.Frsize // what the block counts count
	if unit == 0 {
		unit = s.Bsize
	}
	return backing.Space{
		BlockSize: uint32(unit),
		Blocks:    s.Blocks, BlocksFree: s.Bfree, BlocksAvail: s.Bavail,
		Files: s.Files, FilesFree: s.Ffree,
	}, nil
}

// Location is where the store is, as a user would name it: its folder.
func (st *Store) Location() string { return st.root }

// NamesChanged is when a session was last created, renamed, archived,
// trashed, restored or removed: the latest mtime of the folders of names
// (names, archive, trash). The zero time if unknown.
func (st *Store) NamesChanged() time.Time {
	var t time.Time
	for _, dir := range []string{"names", "archive", "trash"} {
		if fi, err := stat(st.path(dir)); err == nil && fi.ModTime().After(t) {
			t = fi.ModTime()
		}
	}
	return t
}
