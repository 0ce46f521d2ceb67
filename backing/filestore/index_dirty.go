package filestore

import (
	"errors"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Dirty marks: how the search index learns which sessions changed, whoever
// changed them. Every change to a session's messages, branches or meta
// marks the session (index/dirty/<id>) under the session lock, before it
// writes (lockWritable); the index takes a mark (renames it to <id>.<n>)
// under the same lock before it reads the session, and drops it once what
// it read is committed. So a change committed before the take is read, one
// made after it leaves a new mark, and a crash anywhere leaves a mark that
// is done again. A mark costs one open(2) of a file that is usually there.
// Names (create, rename, archive, trash, restore, purge) need no mark: the
// index compares the names folders with what it saw (index_names.go).

func (st *Store) dirtyDir() string { return st.path("index", "dirty") }

// markDirty marks session id for the index. It never fails a change: a
// mark that cannot be made is a stale index, which a query or a rebuild
// mends by reading every session.
func (st *Store) markDirty(id string) {
	path := st.path("index", "dirty", id)
	f, err := openFile(path, os.O_WRONLY|os.O_CREATE|unix.O_NOFOLLOW, fileMode)
	if errors.Is(err, os.ErrNotExist) {
		if mkdirExisting(st.path("index")) == nil && mkdirExisting(st.dirtyDir()) == nil {
			f, err = openFile(path, os.O_WRONLY|os.O_CREATE|unix.O_NOFOLLOW, fileMode)
		}
	}
	if err == nil {
		f.Close()
	}
	st.idx.kick()
}

// dirtyMark is a mark found in the dirty folder: the session it names and
// the file's name, a mark taken before (by a process that died) or not.
type dirtyMark struct {
	id, file string
	taken    bool
}

func (st *Store) dirtyMarks() ([]dirtyMark, error) {
	ents, err := readDir(st.dirtyDir())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	marks := make([]dirtyMark, 0, len(ents))
	for _, e := range ents {
		id, _, taken := strings.Cut(e.Name(), ".")
		marks = append(marks, dirtyMark{id: id, file: e.Name(), taken: taken})
	}
	return marks, nil
}

// takeMark renames a mark so that a later change leaves a new one; it
// returns the taken file's name, to drop once the session is indexed. It
// holds the session lock meanwhile, so that no change is between its mark
// and its commit (a session gone for good has no lock to take).
func (st *Store) takeMark(m dirtyMark, n int) (string, error) {
	if m.taken {
		return m.file, nil
	}
	if unlock, err := st.handle(m.id).lk.lock(); err == nil {
		defer unlock()
	}
	taken := m.id + "." + strconv.Itoa(os.Getpid()) + "-" + strconv.Itoa(n)
	if err := rename(st.path("index", "dirty", m.file), st.path("index", "dirty", taken), 0); err != nil {
		return "", err
	}
	return taken, nil
}

func (st *Store) dropMark(file string) error {
	err := remove(st.path("index", "dirty", file))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}
