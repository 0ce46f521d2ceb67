package filestore

import (
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
)

// heldDirs keeps the folders of names (names, archive, trash) open. A
// lookup of a session by name then reads its link in one call, where the
// path walked anew, refusing links (nofollow.go), costs three: ls -l of
// the mount looks up every session twice (the listing, then the kernel's
// lookup).
//
// A folder is opened the way every path of the store is, so a link in its
// place is refused, and the descriptor held then names that folder
// whatever is later moved onto its path. Only a link found through it is
// believed: anything else (no such entry, not a link) is asked of the
// path again, which also tells a folder put in the place of the one held.
type heldDirs struct {
	mu sync.RWMutex   // read-held while a descriptor is in use: it is closed under the write lock
	fd map[string]int // by folder name; absent: not opened yet
}

// readHeld reads link name of the store's folder dir through the folder
// held, opening it the first time; ok false if it cannot be read so.
func (st *Store) readHeld(dir, name string) (target string, ok bool) {
	h := st.dirs
	h.mu.RLock()
	fd, open := h.fd[dir]
	if open {
		t, err := readlinkAt(fd, name)
		h.mu.RUnlock()
		return t, err == nil
	}
	h.mu.RUnlock()
	h.mu.Lock() // the first time: open it
	defer h.mu.Unlock()
	if fd, open = h.fd[dir]; !open {
		var err error
		if fd, err = openat2(st.path(dir), unix.O_PATH|unix.O_DIRECTORY, 0); err != nil {
			return "", false
		}
		h.fd[dir] = fd
	}
	t, err := readlinkAt(fd, name)
	return t, err == nil
}

// drop closes the descriptor of dir: its path names another folder now.
func (st *Store) drop(dir string) {
	h := st.dirs
	h.mu.Lock()
	defer h.mu.Unlock()
	if fd, ok := h.fd[dir]; ok {
		unix.Close(fd)
		delete(h.fd, dir)
	}
}

// newHeldDirs makes the store's held folders, closed once the store is
// unreachable: a Store has no Close, and a process (a test) may open many.
func newHeldDirs(st *Store) *heldDirs {
	h := &heldDirs{fd: map[string]int{}}
	runtime.AddCleanup(st, func(h *heldDirs) {
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, fd := range h.fd {
			unix.Close(fd)
		}
		h.fd = nil
	}, h)
	return h
}

// readNameLink is readLink of dir/name, a name link of folder dir.
func (st *Store) readNameLink(dir, name string) (string, error) {
	if t, ok := st.readHeld(dir, name); ok {
		if id, ok := linkID(t); ok {
			return id, nil
		}
	}
	id, err := readLink(st.path(dir, name))
	if err == nil {
		// Found by its path but not through the folder held: that folder
		// is not the one at the path any more.
		st.drop(dir)
	}
	return id, err
}
