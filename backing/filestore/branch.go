package filestore

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sessfs/sessfs/backing"
)

func (s *Session) branchFile(id string) string { return s.path("branches", id+".json") }
func (s *Session) logFile(id string) string    { return s.path("logs", id+".jsonl") }

// Branch finds a branch by name; "" means the default branch.
func (s *Session) Branch(name string) (backing.Branch, error) {
	c, err := s.branchList()
	if err != nil {
		return backing.Branch{}, err
	}
	for _, b := range c.list {
		if (name == "" && b.IsDefault()) || (name != "" && b.Name == name) {
			return b, nil
		}
	}
	for _, bad := range c.bad {
		if name != "" && bad.Name == name {
			return backing.Branch{}, backing.Sentencef(backing.ErrNotFound, "branch %q cannot be used: %s: %v", name, s.branchFile(bad.ID), bad.Err)
		}
	}
	if name == "" {
		return backing.Branch{}, fmt.Errorf("session %s has no default branch: %w", s.id, backing.ErrNotFound)
	}
	return backing.Branch{}, fmt.Errorf("branch %q: %w", name, backing.ErrNotFound)
}

// BranchByID finds a branch by its id ("" is the default branch).
func (s *Session) BranchByID(id string) (backing.Branch, error) {
	if id == "" {
		return s.Branch("")
	}
	c, err := s.branchList()
	if err != nil {
		return backing.Branch{}, err
	}
	for _, b := range c.list {
		if b.ID == id {
			return b, nil
		}
	}
	for _, bad := range c.bad {
		if bad.ID == id {
			return backing.Branch{}, backing.Sentencef(backing.ErrNotFound, "branch id %s cannot be used: %s: %v", id, s.branchFile(bad.ID), bad.Err)
		}
	}
	return backing.Branch{}, fmt.Errorf("branch id %s: %w", id, backing.ErrNotFound)
}

// newBranch gives b a new id.
func newBranch(b backing.Branch) (backing.Branch, error) {
	id, err := newID()
	if err != nil {
		return b, err
	}
	b.ID = id.String()
	return b, nil
}

// createBranch writes a new branch's file and its empty log; the caller
// holds the session lock.
func (s *Session) createBranch(b backing.Branch) (backing.Branch, error) {
	b, err := newBranch(b)
	if err != nil {
		return b, err
	}
	defer s.dropBranchCache()
	return b, writeBranchFiles(s.dir, b)
}

// writeBranchFiles writes a new branch of the session folder dir: its empty
// log, then its file, which makes it a branch. If the file cannot be
// written the log goes again, so a refused fork leaves nothing behind.
func writeBranchFiles(dir string, b backing.Branch) error {
	log := filepath.Join(dir, "logs", b.ID+".jsonl")
	if err := createExclusive(log, nil); err != nil {
		return err
	}
	// Written aside and renamed into place: a reader listing branches
	// must never find the file created but still empty. The id is new, so
	// nothing is replaced.
	err := writeFileAtomic(filepath.Join(dir, "branches", b.ID+".json"), encodeBranch(b))
	if err != nil {
		remove(log)
	}
	return err
}

// encodeBranch is a branch file's bytes.
func encodeBranch(b backing.Branch) []byte {
	data, _ := json.Marshal(b) // strings, a number and a time: cannot fail
	return append(data, '\n')
}

// forkBranch creates branch name from the branch of id from ("" is the default
// branch), keeping the first at messages of from (Head: all of them, as of
// now). It copies no message and writes one small file and one empty log,
// whatever the length of from. Branch operations take ids: a name is
// looked up once, by whoever got it from a user, so a rename in between
// cannot redirect the operation to another branch.
func (s *Session) forkBranch(from string, at int, name string) (backing.Branch, error) {
	if err := backing.ValidName(name); err != nil {
		return backing.Branch{}, err
	}
	unlock, err := s.lockWritable()
	if err != nil {
		return backing.Branch{}, err
	}
	defer unlock()
	if _, err := s.Branch(name); err == nil {
		return backing.Branch{}, fmt.Errorf("branch %q: %w", name, backing.ErrExist)
	}
	src, err := s.BranchByID(from)
	if err != nil {
		return backing.Branch{}, err
	}
	b := backing.Branch{Name: name, Created: now()}
	if at == backing.Head {
		// O(1): the parent's log size, once a torn tail is cut away.
		b.Parent = src.ID
		if b.ParentOffset, err = s.cutTornTail(src.ID); err != nil {
			return b, err
		}
	} else {
		v, err := s.view(src)
		if err != nil {
			return b, err
		}
		if at < 0 || at > v.Len() {
			return b, backing.Sentencef(backing.ErrInvalid, "fork point %d: branch %q has %s", at, src.Name, backing.Plural(v.Len(), "message"))
		}
		// Point at the log that holds the last kept message, so the
		// new branch depends on no more history than it shows.
		b.Parent, b.ParentOffset = v.forkPoint(at)
	}
	return s.createBranch(b)
}

// renameBranch renames the branch of id: one atomic replace of its file.
func (s *Session) renameBranch(id, name string) error {
	if err := backing.ValidName(name); err != nil {
		return err
	}
	unlock, err := s.lockWritable()
	if err != nil {
		return err
	}
	defer unlock()
	b, err := s.BranchByID(id)
	if err != nil {
		return err
	}
	if b.Name == name {
		return nil
	}
	if _, err := s.Branch(name); err == nil {
		return fmt.Errorf("branch %q: %w", name, backing.ErrExist)
	}
	b.Name = name
	defer s.dropBranchCache()
	return writeFileAtomic(s.branchFile(b.ID), encodeBranch(b))
}

// deleteBranch moves the branch of id and its log into the session's
// trash folder. The default branch cannot be deleted (ErrBusy), nor a
// branch others forked from (ErrNotEmpty): delete or keep the children
// first.
func (s *Session) deleteBranch(id string) error {
	unlock, err := s.lockWritable()
	if err != nil {
		return err
	}
	defer unlock()
	b, err := s.BranchByID(id)
	if err != nil {
		return err
	}
	if b.IsDefault() {
		return fmt.Errorf("branch %q: %w", b.Name, backing.ErrBusy)
	}
	list, err := s.Branches()
	if err != nil {
		return err
	}
	var kids []string
	for _, c := range list {
		if c.Parent == b.ID {
			kids = append(kids, c.Name)
		}
	}
	if len(kids) > 0 {
		return fmt.Errorf("branch %q: %w: %s", b.Name, backing.ErrNotEmpty, strings.Join(kids, ", "))
	}
	if err := mkdirExisting(s.path("trash")); err != nil {
		return err
	}
	defer s.dropBranchCache()
	// The branch file goes first: the branch vanishes in one step, and a
	// crash before its log follows leaves a log fsck puts in the trash.
	if err := rename(s.branchFile(b.ID), s.path("trash", b.ID+".json"), 0); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := moveLog(s.logFile(b.ID), s.path("trash", b.ID+".jsonl")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	// The log's index (offsets, ids) goes with it: a process that forks
	// and removes branches for days must not keep every one it removed.
	s.mu.Lock()
	delete(s.logs, b.ID)
	s.mu.Unlock()
	s.dropKeptBranch(b.ID)
	if err := syncDir(s.path("branches")); err != nil {
		return err
	}
	return syncDir(s.path("trash"))
}
