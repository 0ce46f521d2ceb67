package memstore

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// session is what the store keeps of one session; the store's lock
// guards it.
type session struct {
	id       string
	meta     []byte // meta.json as a file would hold it
	metaTime time.Time
	state_   string // the meta's state and name, kept to answer without a decode
	name_    string
	branches map[string]*branch // the live ones, by id
	main     string             // the default branch's id
	titled   bool               // the session has had a title (see autoTitle)
}

func (s *session) state() string { return s.state_ }
func (s *session) name() string  { return s.name_ }

func (s *session) decode() (backing.Meta, error) {
	m, err := backing.DecodeStoredMeta(s.meta)
	if err != nil {
		return m, fmt.Errorf("session %s: %w", s.id, err)
	}
	return m, nil
}

// put stores m as the session's meta.
func (s *session) put(m backing.Meta) error {
	data, err := backing.EncodeMeta(m)
	if err != nil {
		return err
	}
	s.meta, s.metaTime, s.state_, s.name_ = data, now(), m.State, m.Name
	return nil
}

// lastAppend is the newest of the branches' last activities.
func (s *session) lastAppend() time.Time {
	var t time.Time
	for _, b := range s.branches {
		if b.mtime.After(t) {
			t = b.mtime
		}
	}
	return t
}

// Session is a handle on one session, by id: it stays valid across
// renames, archiving and the trash, and fails with ErrNotFound once the
// session is removed.
type Session struct {
	st *Store
	id string
}

var _ backing.Session = (*Session)(nil)

// ID is the session's id, a UUID v7.
func (h *Session) ID() string { return h.id }

// read runs fn on the session under the store's lock.
func (h *Session) read(fn func(s *session) error) error {
	h.st.mu.Lock()
	defer h.st.mu.Unlock()
	s, ok := h.st.sessions[h.id]
	if !ok {
		return fmt.Errorf("session id %s: %w", h.id, backing.ErrNotFound)
	}
	return fn(s)
}

// change runs fn on the session under the store's lock, unless it is in
// the trash, and reports the changes fn made once the lock is let go.
func (h *Session) change(fn func(s *session) ([]backing.Change, error)) error {
	return h.st.do(func() ([]backing.Change, error) {
		s, ok := h.st.sessions[h.id]
		if !ok {
			return nil, fmt.Errorf("session id %s: %w", h.id, backing.ErrNotFound)
		}
		if s.state() == backing.StateTrashed {
			return nil, backing.ErrTrashed
		}
		return fn(s)
	})
}

// Trashed reports whether the session is in the trash.
func (h *Session) Trashed() bool {
	trashed := false
	h.read(func(s *session) error {
		trashed = s.state() == backing.StateTrashed
		return nil
	})
	return trashed
}

// Meta is the session's meta.
func (h *Session) Meta() (backing.Meta, error) {
	var m backing.Meta
	err := h.read(func(s *session) (err error) {
		m, err = s.decode()
		return err
	})
	return m, err
}

// MetaBytes is meta.json as stored.
func (h *Session) MetaBytes() ([]byte, error) {
	var b []byte
	err := h.read(func(s *session) error {
		b = s.meta // never changed in place: put replaces it
		return nil
	})
	return b, err
}

// MetaModTime is when the meta last changed.
func (h *Session) MetaModTime() (time.Time, error) {
	var t time.Time
	err := h.read(func(s *session) error {
		t = s.metaTime
		return nil
	})
	return t, err
}

// LastAppend is the time of the last append to any branch, or of the
// session's creation.
func (h *Session) LastAppend() (time.Time, error) {
	var t time.Time
	err := h.read(func(s *session) error {
		t = s.lastAppend()
		return nil
	})
	return t, err
}

// CheckMeta is EditMeta's check of a document, without the edit.
func (h *Session) CheckMeta(doc []byte) (backing.Meta, error) {
	return backing.CheckMetaDoc(h.id, doc)
}

// EditMeta replaces the meta with a user's document by the rule of
// backing.Edited.
func (h *Session) EditMeta(doc []byte) (backing.Meta, error) {
	in, err := h.CheckMeta(doc)
	if err != nil {
		return in, err
	}
	return h.updateMeta(func(m *backing.Meta) error {
		*m = backing.Edited(*m, in, now())
		return nil
	})
}

// SetExtra sets one field of the meta beside the known ones; a nil value
// removes it.
func (h *Session) SetExtra(key string, v json.RawMessage) error {
	if err := backing.ValidExtra(key, v); err != nil {
		return err
	}
	_, err := h.updateMeta(func(m *backing.Meta) error {
		m.PutExtra(key, v)
		m.Updated = now()
		return nil
	})
	return err
}

// SetParent names the session this one was derived from.
func (h *Session) SetParent(id string) error {
	_, err := h.updateMeta(func(m *backing.Meta) error {
		m.Parent, m.Updated = id, now()
		return nil
	})
	return err
}

// updateMeta applies edit to the meta, decoded afresh: nothing a caller
// holds shares its tags or extra fields.
func (h *Session) updateMeta(edit func(m *backing.Meta) error) (backing.Meta, error) {
	var m backing.Meta
	err := h.change(func(s *session) ([]backing.Change, error) {
		var err error
		if m, err = s.decode(); err != nil {
			return nil, err
		}
		if err := edit(&m); err != nil {
			return nil, err
		}
		if err := s.put(m); err != nil {
			return nil, err
		}
		return []backing.Change{{Kind: backing.MetaChanged, Session: s.id}}, nil
	})
	return m, err
}
