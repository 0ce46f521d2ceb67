package filestore

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/sessfs/sessfs/backing"
)

// Session is a handle on one session, by id: it stays valid across renames,
// archiving and the trash. The store keeps one handle per session, so every
// goroutine of a process shares its indexes and its group commit; it
// keeps a bounded number of them (handles.go).
type Session struct {
	st  *Store
	id  string
	dir string
	lk  fileLock

	mu         sync.Mutex
	logs       map[string]*logIndex // by branch id
	queue      []*pending
	committing bool
	branches   branchCache
	titled     atomic.Bool // the session has had a title (see autoTitle)
	sealing    atomic.Bool // a seal runs in the background (seal.go)
	used       uint64      // when last asked for, in Store.tick (handles.go); under Store.mu
}

// SessionByID opens a session by its id, whatever its state.
func (st *Store) SessionByID(id string) (backing.Session, error) {
	if backing.ValidName(id) != nil || filepath.Base(id) != id {
		return nil, fmt.Errorf("session id %q: %w", id, backing.ErrNotFound)
	}
	if _, err := stat(filepath.Join(st.sessionDir(id), "meta.json")); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("session id %s: %w", id, backing.ErrNotFound)
		}
		return nil, err
	}
	return st.handle(id), nil
}

// ID is the session's id, a UUID v7.
func (s *Session) ID() string { return s.id }

// Dir is the session's folder in the store.
func (s *Session) Dir() string { return s.dir }

func (s *Session) path(elem ...string) string {
	return filepath.Join(append([]string{s.dir}, elem...)...)
}

// Meta reads the session's meta.json.
func (s *Session) Meta() (backing.Meta, error) {
	data, err := readFile(s.path("meta.json"))
	if err != nil {
		return backing.Meta{}, err
	}
	m, err := backing.DecodeStoredMeta(data)
	if err != nil {
		return m, fmt.Errorf("session %s: %w", s.id, err)
	}
	return m, nil
}

// MetaBytes reads meta.json as it is on disk, parseable or not.
func (s *Session) MetaBytes() ([]byte, error) { return readFile(s.path("meta.json")) }

// MetaModTime is when meta.json last changed.
func (s *Session) MetaModTime() (time.Time, error) {
	fi, err := stat(s.path("meta.json"))
	if err != nil {
		return time.Time{}, err
	}
	return fi.ModTime(), nil
}

// writable refuses a change to a session in the trash; the caller holds
// the session lock. The trash link decides: Trash makes it before anything
// else and Restore removes it last. (A plain Lstat: it only tests the
// link's existence, and Open refused a trash folder that is a link.)
func (s *Session) writable() error {
	if _, err := os.Lstat(s.st.path("trash", s.id)); err == nil {
		return backing.ErrTrashed
	}
	return nil
}

// Trashed reports whether the session is in the trash, and so read-only,
// by the same test every change makes: one lstat.
func (s *Session) Trashed() bool { return s.writable() != nil }

// lockWritable takes the session lock for a change to the session: every
// change but the namespace's own (Trash, Restore) starts here, so a
// session in the trash refuses them all with ErrTrashed, and the search
// index hears of them all (markDirty), in one place.
func (s *Session) lockWritable() (unlock func(), err error) {
	unlock, err = s.lk.lock()
	if err != nil {
		return nil, err
	}
	if err := s.writable(); err != nil {
		unlock()
		return nil, err
	}
	s.st.markDirty(s.id)
	return unlock, nil
}

// updateMeta applies change to meta.json under the session lock; a
// session in the trash refuses it (ErrTrashed).
func (s *Session) updateMeta(change func(*backing.Meta) error) (backing.Meta, error) {
	unlock, err := s.lockWritable()
	if err != nil {
		return backing.Meta{}, err
	}
	defer unlock()
	return s.updateMetaLocked(change)
}

// updateNamesMeta is updateMeta for the namespace's changes (see
// changeNames), which set a session's name, state and trash time whether
// or not it is in the trash: Trash and Restore change exactly that.
func (s *Session) updateNamesMeta(change func(*backing.Meta) error) (backing.Meta, error) {
	unlock, err := s.lk.lock()
	if err != nil {
		return backing.Meta{}, err
	}
	defer unlock()
	return s.updateMetaLocked(change)
}

// updateMetaLocked is updateMeta for a caller that holds the session lock
// and has checked that the change is allowed.
func (s *Session) updateMetaLocked(change func(*backing.Meta) error) (backing.Meta, error) {
	m, err := s.Meta()
	if err != nil {
		return m, err
	}
	if err := change(&m); err != nil {
		return m, err
	}
	data, err := backing.EncodeMeta(m)
	if err != nil {
		return m, err
	}
	return m, writeFileAtomic(s.path("meta.json"), data)
}

// editMeta replaces meta.json with doc, the way a user edits it: doc must be
// a JSON object with the session's id. The fields the store owns (id, name,
// dates, state, trash time) keep their values whatever doc says; every other
// field, known or not, takes doc's value, and a field doc leaves out is
// removed. A meta.json the store cannot read (the mount shows its bytes so
// that a person can mend it) is replaced by doc whole, its name and state
// taken from the session's name link, as fsck would; the old bytes go to
// the session's quarantine.
func (s *Session) editMeta(doc []byte) (backing.Meta, error) {
	in, err := s.CheckMeta(doc)
	if err != nil {
		return in, err
	}
	unlock, err := s.lockWritable()
	if err != nil {
		return backing.Meta{}, err
	}
	defer unlock()
	if _, err := s.Meta(); errors.Is(err, backing.ErrInvalid) {
		return s.mendMeta(in)
	}
	return s.updateMetaLocked(func(m *backing.Meta) error {
		*m = backing.Edited(*m, in, now())
		return nil
	})
}

// CheckMeta is EditMeta's check of a document, without the edit: a JSON
// object in valid UTF-8 with the session's id. The mount makes it when a
// write completes the document, so that a bad one fails that write.
func (s *Session) CheckMeta(doc []byte) (backing.Meta, error) {
	return backing.CheckMetaDoc(s.id, doc)
}

// mendMeta replaces a meta.json that cannot be read with m. The caller
// holds the session lock and has checked that it is not in the trash.
func (s *Session) mendMeta(m backing.Meta) (backing.Meta, error) {
	old, err := readFile(s.path("meta.json"))
	if err != nil {
		return m, err
	}
	m.Name, m.State, m.Trashed = s.id, backing.StateActive, time.Time{}
	if name, dir, ok := s.st.linkOf(s.id); ok {
		m.Name, m.State = name, stateOf(dir)
	}
	if m.Created.IsZero() {
		m.Created = now()
	}
	m.Updated = now()
	if err := s.quarantine("meta.json", "bad", old); err != nil {
		return m, err
	}
	return m, s.writeMeta(m)
}

// setTitle sets the session's title, which must be valid UTF-8.
func (s *Session) setTitle(title string) error {
	if !utf8.ValidString(title) {
		return fmt.Errorf("%w: title: not valid UTF-8", backing.ErrInvalid)
	}
	_, err := s.updateMeta(func(m *backing.Meta) error {
		m.Title, m.Updated = title, now()
		return nil
	})
	return err
}

// setExtra sets one key of meta.json that the store does not own (an
// importer's record of its source, say); a nil value removes it.
func (s *Session) setExtra(key string, v json.RawMessage) error {
	if err := backing.ValidExtra(key, v); err != nil {
		return err
	}
	_, err := s.updateMeta(func(m *backing.Meta) error {
		m.PutExtra(key, v)
		m.Updated = now()
		return nil
	})
	return err
}

// setParent records the session this one was derived from (its id), as an
// importer does for an agent's forked sessions.
func (s *Session) setParent(id string) error {
	_, err := s.updateMeta(func(m *backing.Meta) error {
		m.Parent, m.Updated = id, now()
		return nil
	})
	return err
}

// backdate sets the time of a branch's last message to t, for messages an
// importer brings in that were written earlier elsewhere: listings then
// sort and date the session by when it happened, not when it was imported.
// It never moves the time forward.
func (s *Session) backdate(branchID string, t time.Time) error {
	unlock, err := s.lockWritable()
	if err != nil {
		return err
	}
	defer unlock()
	b, err := s.BranchByID(branchID)
	if err != nil {
		return err
	}
	path := s.logFile(b.ID)
	fi, err := stat(path)
	if err != nil {
		return err
	}
	if t.IsZero() || !t.Before(fi.ModTime()) {
		return nil
	}
	return chtimes(path, t)
}
