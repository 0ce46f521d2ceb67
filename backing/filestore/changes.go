package filestore

import (
	"encoding/json"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// The calls that change the store, each publishing what it changed to the
// change feed (feed.go) once it succeeded and let go of its locks: the one
// place that says which call publishes what. Each does its work in the
// unexported method of its name.

// AppendID is appendID, told to the change feed, with the title the
// first prompt gave when it gave one.
func (s *Session) AppendID(branchID string, msgs [][]byte) error {
	titled := s.titled.Load()
	if err := s.appendID(branchID, msgs); err != nil || len(msgs) == 0 {
		return err
	}
	if subs := s.st.feed.Now(); subs != nil {
		if c, ok := s.appendedChange(branchID); ok {
			subs.Tell(c)
		}
		if !titled && s.titled.Load() { // the first prompt titled it
			subs.Tell(backing.Change{Kind: backing.MetaChanged, Session: s.id})
		}
	}
	return nil
}

// Backdate is backdate, told to the change feed.
func (s *Session) Backdate(branchID string, t time.Time) error {
	if err := s.backdate(branchID, t); err != nil {
		return err
	}
	if subs := s.st.feed.Now(); subs != nil {
		if c, ok := s.appendedChange(branchID); ok {
			subs.Tell(c)
		}
	}
	return nil
}

// appendedChange is the change telling that branch id ("" the default)
// grew, with its length as a view counts it; false when the branch is
// gone meanwhile (its deletion is told).
func (s *Session) appendedChange(id string) (backing.Change, bool) {
	b, err := s.BranchByID(id)
	if err != nil {
		return backing.Change{}, false
	}
	c := backing.Change{Kind: backing.Appended, Session: s.id, Branch: b.ID, Len: -1}
	if v, err := s.view(b); err == nil {
		c.Len = v.Len()
	}
	return c, true
}

// Fork is forkBranch, told to the change feed.
func (s *Session) Fork(from string, at int, name string) (backing.Branch, error) {
	b, err := s.forkBranch(from, at, name)
	if err == nil {
		s.publishBranch(b.ID)
	}
	return b, err
}

// RenameBranch is renameBranch, told to the change feed.
func (s *Session) RenameBranch(id, name string) error {
	if err := s.renameBranch(id, name); err != nil {
		return err
	}
	if b, err := s.Branch(name); err == nil {
		s.publishBranch(b.ID)
	}
	return nil
}

// DeleteBranch is deleteBranch, told to the change feed.
func (s *Session) DeleteBranch(id string) error {
	err := s.deleteBranch(id)
	if err == nil {
		s.publishBranch(id)
	}
	return err
}

func (s *Session) publishBranch(id string) {
	if subs := s.st.feed.Now(); subs != nil {
		subs.Tell(backing.Change{Kind: backing.BranchesChanged, Session: s.id, Branch: id})
	}
}

// EditMeta is editMeta, told to the change feed.
func (s *Session) EditMeta(doc []byte) (backing.Meta, error) {
	m, err := s.editMeta(doc)
	if err == nil {
		s.publishMeta()
	}
	return m, err
}

// SetTitle is setTitle, told to the change feed.
func (s *Session) SetTitle(title string) error {
	return s.metaChanged(s.setTitle(title))
}

// SetExtra is setExtra, told to the change feed.
func (s *Session) SetExtra(key string, v json.RawMessage) error {
	return s.metaChanged(s.setExtra(key, v))
}

// SetParent is setParent, told to the change feed.
func (s *Session) SetParent(id string) error {
	return s.metaChanged(s.setParent(id))
}

// metaChanged publishes a meta change when err, the change's outcome, is
// nil, and returns err.
func (s *Session) metaChanged(err error) error {
	if err == nil {
		s.publishMeta()
	}
	return err
}

func (s *Session) publishMeta() {
	if subs := s.st.feed.Now(); subs != nil {
		subs.Tell(backing.Change{Kind: backing.MetaChanged, Session: s.id})
	}
}

// Create is createSession, told to the change feed.
func (st *Store) Create(name string, m backing.Meta) (backing.Session, backing.Meta, error) {
	s, m, err := st.createSession(name, m)
	if err != nil {
		return nil, m, err
	}
	st.publishNames(s.ID())
	return s, m, nil
}

// Rename is renameSession, told to the change feed.
func (st *Store) Rename(old, name string) error {
	return st.namesChanged(name, st.renameSession(old, name))
}

// Archive is archive, told to the change feed.
func (st *Store) Archive(name string) error {
	return st.namesChanged(name, st.archive(name))
}

// Unarchive is unarchive, told to the change feed.
func (st *Store) Unarchive(name string) error {
	return st.namesChanged(name, st.unarchive(name))
}

// Trash is trash, told to the change feed.
func (st *Store) Trash(name string) error {
	id, _, _ := st.lookupName(name) // after, the name is gone
	if err := st.trash(name); err != nil {
		return err
	}
	st.publishNames(id)
	return nil
}

// Restore is restore, told to the change feed.
func (st *Store) Restore(nameOrID, as string) (string, error) {
	name, err := st.restore(nameOrID, as)
	return name, st.namesChanged(name, err)
}

// Sweep applies the lifecycle policy (backing.SweepWith), told to the
// change feed.
func (st *Store) Sweep(cfg backing.SweepConfig, t time.Time, dryRun bool) (backing.SweepReport, error) {
	rep, err := backing.SweepWith(st, cfg, t, dryRun, st.purgeTrashed)
	if !dryRun {
		for _, id := range rep.Purged {
			st.publishNames(id)
		}
	}
	return rep, err
}

// namesChanged publishes a names change of the session now named name
// when err, the change's outcome, is nil, and returns err.
func (st *Store) namesChanged(name string, err error) error {
	if err == nil && st.feed.Now() != nil {
		id, _, _ := st.lookupName(name)
		st.publishNames(id)
	}
	return err
}

func (st *Store) publishNames(id string) {
	st.idx.kick()
	if subs := st.feed.Now(); subs != nil {
		subs.Tell(backing.Change{Kind: backing.NamesChanged, Session: id})
	}
}
