package memstore

import (
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/sessfs/sessfs/backing"
)

// The namespace: names maps the active and archived sessions' names to
// their ids; a session in the trash keeps its former name in its meta
// alone. Each change is made under the store's lock and reported once it
// is let go (do).

// do runs change under the store's lock, then reports the changes it
// made: a subscriber may call into the store.
func (st *Store) do(change func() ([]backing.Change, error)) error {
	a := st.feed.Now()
	st.mu.Lock()
	cs, err := change()
	st.mu.Unlock()
	for _, c := range cs {
		a.Tell(c)
	}
	return err
}

// Create makes a session named name ("" for a generated name) with m's
// fields, and its default branch.
func (st *Store) Create(name string, m backing.Meta) (backing.Session, backing.Meta, error) {
	m, err := backing.NewSessionMeta(name, m, now())
	if err != nil {
		return nil, m, err
	}
	return st.insert(m)
}

// Receive makes a session of another store's under its id, name and
// dates (backing.Receiver).
func (st *Store) Receive(m backing.Meta) (backing.Session, backing.Meta, error) {
	m, err := backing.ReceivedMeta(m, now())
	if err != nil {
		return nil, m, err
	}
	return st.insert(m)
}

// insert adds the session of meta m with an empty default branch, unless
// its name or its id is taken (the trash included).
func (st *Store) insert(m backing.Meta) (backing.Session, backing.Meta, error) {
	main, err := uuid.NewV7()
	if err != nil {
		return nil, m, err
	}
	err = st.do(func() ([]backing.Change, error) {
		if _, ok := st.names[m.Name]; ok {
			return nil, fmt.Errorf("session %q: %w", m.Name, backing.ErrExist)
		}
		if _, ok := st.sessions[m.ID]; ok {
			return nil, fmt.Errorf("session id %s: %w", m.ID, backing.ErrExist)
		}
		t := now()
		s := &session{id: m.ID, main: main.String(), branches: map[string]*branch{}}
		s.branches[s.main] = &branch{b: backing.Branch{ID: s.main, Name: backing.DefaultBranchName, Created: t}, mtime: t}
		if err := s.put(m); err != nil {
			return nil, err
		}
		st.sessions[m.ID] = s
		st.names[m.Name] = m.ID
		st.namesChanged = t
		return []backing.Change{{Kind: backing.NamesChanged, Session: m.ID}}, nil
	})
	if err != nil {
		return nil, m, err
	}
	return &Session{st: st, id: m.ID}, m, nil
}

// rename runs step on the meta of the session named name, under the
// lock, and records a change of the names.
func (st *Store) rename(name string, step func(s *session, m *backing.Meta) error) error {
	return st.do(func() ([]backing.Change, error) {
		id, ok := st.names[name]
		if !ok {
			return nil, fmt.Errorf("session %q: %w", name, backing.ErrNotFound)
		}
		s := st.sessions[id]
		m, err := s.decode()
		if err != nil {
			return nil, err
		}
		if err := step(s, &m); err != nil {
			return nil, err
		}
		if err := s.put(m); err != nil {
			return nil, err
		}
		st.namesChanged = now()
		return []backing.Change{{Kind: backing.NamesChanged, Session: id}}, nil
	})
}

// Rename gives an active or archived session a new name, never one in use.
func (st *Store) Rename(old, name string) error {
	if err := backing.ValidSessionName(name); err != nil {
		return err
	}
	return st.rename(old, func(s *session, m *backing.Meta) error {
		if old == name {
			return nil
		}
		if _, ok := st.names[name]; ok {
			return fmt.Errorf("session %q: %w", name, backing.ErrExist)
		}
		delete(st.names, old)
		st.names[name] = s.id
		m.Name = name
		return nil
	})
}

// Archive moves an active session to the archive.
func (st *Store) Archive(name string) error { return st.setArchived(name, true) }

// Unarchive brings an archived session back.
func (st *Store) Unarchive(name string) error { return st.setArchived(name, false) }

func (st *Store) setArchived(name string, archive bool) error {
	state := backing.StateActive
	if archive {
		state = backing.StateArchived
	}
	return st.rename(name, func(s *session, m *backing.Meta) error {
		if m.State == state {
			return backing.Sentencef(backing.ErrInvalid, "session %q is already %s", name, state)
		}
		m.State = state
		return nil
	})
}

// Trash moves an active or archived session to the trash: its name is
// freed and it is read-only until restored.
func (st *Store) Trash(name string) error {
	return st.rename(name, func(s *session, m *backing.Meta) error {
		delete(st.names, name)
		m.State, m.Trashed = backing.StateTrashed, now()
		return nil
	})
}

// Restore brings a session back from the trash by id or former name, as
// as or its former name, and returns the name.
func (st *Store) Restore(nameOrID, as string) (string, error) {
	var name string
	err := st.do(func() ([]backing.Change, error) {
		s, err := st.trashed(nameOrID)
		if err != nil {
			return nil, err
		}
		m, err := s.decode()
		if err != nil {
			return nil, err
		}
		name = m.Name
		if as != "" {
			name = as
		}
		if err := backing.ValidSessionName(name); err != nil {
			return nil, err
		}
		if _, ok := st.names[name]; ok {
			return nil, fmt.Errorf("session %q: %w; restore it under another name", name, backing.ErrExist)
		}
		m.Name, m.State, m.Trashed = name, backing.StateActive, time.Time{}
		if err := s.put(m); err != nil {
			return nil, err
		}
		st.names[name] = s.id
		st.namesChanged = now()
		return []backing.Change{{Kind: backing.NamesChanged, Session: s.id}}, nil
	})
	return name, err
}

// trashed finds a session in the trash by id, or by the name it had. The
// caller holds st.mu.
func (st *Store) trashed(nameOrID string) (*session, error) {
	if s, ok := st.sessions[nameOrID]; ok && s.state() == backing.StateTrashed {
		return s, nil
	}
	var found []*session
	for _, s := range st.sessions {
		if s.state() == backing.StateTrashed && s.name() == nameOrID {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 0:
		return nil, backing.Sentencef(backing.ErrNotFound, "no session %q in the trash", nameOrID)
	case 1:
		return found[0], nil
	}
	return nil, fmt.Errorf("%w: %d sessions named %q in the trash; restore one by id", backing.ErrExist, len(found), nameOrID)
}

// Remove deletes session id for good, wherever it is, and frees the
// memory it held (backing.Remover).
func (st *Store) Remove(id string) error {
	return st.do(func() ([]backing.Change, error) {
		s, ok := st.sessions[id]
		if !ok {
			return nil, fmt.Errorf("session id %q: %w", id, backing.ErrNotFound)
		}
		if st.names[s.name()] == id {
			delete(st.names, s.name())
		}
		for _, b := range s.branches {
			st.bytes -= b.bytes
		}
		delete(st.sessions, id)
		st.namesChanged = now()
		return []backing.Change{{Kind: backing.NamesChanged, Session: id}}, nil
	})
}
