package backing

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
)

// DefaultBranchName names the branch every session starts with.
const DefaultBranchName = "main"

// Branch is a line of messages. A fork copies nothing: it names its parent
// branch and how many bytes of the parent's own log it continues from, and
// reading it resolves that ancestry. Names map to stable ids, so a rename
// rewrites one small file and leaves children untouched.
type Branch struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Parent is the id of the branch this one forked from; empty for the
	// default branch, the root of the tree.
	Parent string `json:"parent,omitempty"`
	// ParentOffset is how many bytes of the parent's own log (always a
	// line boundary) belong to this branch's history.
	ParentOffset int64     `json:"parent_offset"`
	Created      time.Time `json:"created"`
}

// IsDefault reports whether b is the session's default branch.
func (b Branch) IsDefault() bool { return b.Parent == "" }

func (s *Session) branchFile(id string) string { return s.path("branches", id+".json") }
func (s *Session) logFile(id string) string    { return s.path("logs", id+".jsonl") }

// branchCache holds the branch list until the branches folder changes:
// every branch change renames or creates a file there, which moves the
// folder's mtime. The kernel stamps mtimes from a coarse clock (one tick,
// at most 10 ms), so a list read within racyWindow of the folder's mtime is
// not trusted: a change in the same tick would not move it (the "racy git"
// rule). This process's own changes drop the cache outright.
type branchCache struct {
	mtime, read time.Time
	list        []Branch
}

const racyWindow = 100 * time.Millisecond

func (s *Session) dropBranchCache() {
	s.mu.Lock()
	s.branches = branchCache{}
	s.mu.Unlock()
}

// Branches lists the session's branches, the default one first.
func (s *Session) Branches() ([]Branch, error) {
	// Lstat: the folder's mtime only says whether to read it again, and
	// the read refuses a link.
	fi, err := os.Lstat(s.path("branches"))
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	c := s.branches
	s.mu.Unlock()
	if c.list != nil && c.mtime.Equal(fi.ModTime()) && c.read.Sub(c.mtime) > racyWindow {
		return c.list, nil
	}
	read := time.Now()
	list, err := s.readBranches()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.branches = branchCache{mtime: fi.ModTime(), read: read, list: list}
	s.mu.Unlock()
	return list, nil
}

func (s *Session) readBranches() ([]Branch, error) {
	ents, err := readDir(s.path("branches"))
	if err != nil {
		return nil, err
	}
	list := []Branch{}
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || isTemp(e.Name()) {
			continue
		}
		b, err := s.readBranch(id)
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted since the folder was read
		}
		if err != nil {
			return nil, err
		}
		list = append(list, b)
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].IsDefault() != list[j].IsDefault() {
			return list[i].IsDefault()
		}
		return list[i].Name < list[j].Name
	})
	return list, nil
}

func (s *Session) readBranch(id string) (Branch, error) {
	var b Branch
	data, err := readFile(s.branchFile(id))
	if err != nil {
		return b, err
	}
	if err := json.Unmarshal(data, &b); err != nil {
		return b, fmt.Errorf("%w: branch file %s: %v", ErrInvalid, s.branchFile(id), err)
	}
	if b.ID != id {
		return b, fmt.Errorf("%w: branch file %s holds id %q", ErrInvalid, s.branchFile(id), b.ID)
	}
	return b, nil
}

// Branch finds a branch by name; "" means the default branch.
func (s *Session) Branch(name string) (Branch, error) {
	list, err := s.Branches()
	if err != nil {
		return Branch{}, err
	}
	for _, b := range list {
		if (name == "" && b.IsDefault()) || (name != "" && b.Name == name) {
			return b, nil
		}
	}
	if name == "" {
		return Branch{}, fmt.Errorf("session %s has no default branch: %w", s.id, ErrNotFound)
	}
	return Branch{}, fmt.Errorf("branch %q: %w", name, ErrNotFound)
}

// BranchByID finds a branch by its id.
func (s *Session) BranchByID(id string) (Branch, error) {
	list, err := s.Branches()
	if err != nil {
		return Branch{}, err
	}
	for _, b := range list {
		if b.ID == id {
			return b, nil
		}
	}
	return Branch{}, fmt.Errorf("branch id %s: %w", id, ErrNotFound)
}

// createBranch writes a new branch's file and its empty log; the caller
// holds the session lock (or owns the session being created).
func (s *Session) createBranch(b Branch) (Branch, error) {
	id, err := newID()
	if err != nil {
		return b, err
	}
	b.ID = id.String()
	defer s.dropBranchCache()
	if err := createExclusive(s.logFile(b.ID), nil); err != nil {
		return b, err
	}
	data, err := json.Marshal(b)
	if err != nil {
		return b, err
	}
	// Written aside and renamed into place: a reader listing branches
	// must never find the file created but still empty. The id is new, so
	// nothing is replaced.
	return b, writeFileAtomic(s.branchFile(b.ID), append(data, '\n'))
}

// Head is the fork point at the head of a branch.
const Head = -1

// Fork creates branch name from branch from, keeping the first at messages
// of from (Head: all of them, as of now). It copies no message and writes
// one small file and one empty log, whatever the length of from.
func (s *Session) Fork(from string, at int, name string) (Branch, error) {
	if err := ValidName(name); err != nil {
		return Branch{}, err
	}
	unlock, err := s.lk.lock()
	if err != nil {
		return Branch{}, err
	}
	defer unlock()
	if err := s.writable(); err != nil {
		return Branch{}, err
	}
	if _, err := s.Branch(name); err == nil {
		return Branch{}, fmt.Errorf("branch %q: %w", name, ErrExist)
	}
	src, err := s.Branch(from)
	if err != nil {
		return Branch{}, err
	}
	b := Branch{Name: name, Created: now()}
	if at == Head {
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
			return b, fmt.Errorf("%w: fork point %d: branch %q has %d messages", ErrInvalid, at, src.Name, v.Len())
		}
		// Point at the log that holds the last kept message, so the
		// new branch depends on no more history than it shows.
		b.Parent, b.ParentOffset = v.forkPoint(at)
	}
	return s.createBranch(b)
}

// RenameBranch renames a branch: one atomic replace of its file.
func (s *Session) RenameBranch(old, name string) error {
	if err := ValidName(name); err != nil {
		return err
	}
	unlock, err := s.lk.lock()
	if err != nil {
		return err
	}
	defer unlock()
	if err := s.writable(); err != nil {
		return err
	}
	b, err := s.Branch(old)
	if err != nil {
		return err
	}
	if old == name {
		return nil
	}
	if _, err := s.Branch(name); err == nil {
		return fmt.Errorf("branch %q: %w", name, ErrExist)
	}
	b.Name = name
	defer s.dropBranchCache()
	data, err := json.Marshal(b)
	if err != nil {
		return err
	}
	return writeFileAtomic(s.branchFile(b.ID), append(data, '\n'))
}

// DeleteBranch moves a branch and its log into the session's trash folder.
// The default branch cannot be deleted (ErrBusy), nor a branch others
// forked from (ErrNotEmpty): delete or keep the children first.
func (s *Session) DeleteBranch(name string) error {
	unlock, err := s.lk.lock()
	if err != nil {
		return err
	}
	defer unlock()
	if err := s.writable(); err != nil {
		return err
	}
	b, err := s.Branch(name)
	if err != nil {
		return err
	}
	if b.IsDefault() {
		return fmt.Errorf("branch %q: %w", name, ErrBusy)
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
		return fmt.Errorf("branch %q: %w: %s", name, ErrNotEmpty, strings.Join(kids, ", "))
	}
	if err := mkdirExisting(s.path("trash")); err != nil {
		return err
	}
	defer s.dropBranchCache()
	// The branch file goes first: the branch vanishes in one step, and a
	// crash before its log follows leaves a log fsck puts in the trash.
	for _, mv := range [][2]string{
		{s.branchFile(b.ID), s.path("trash", b.ID+".json")},
		{s.logFile(b.ID), s.path("trash", b.ID+".jsonl")},
	} {
		if err := rename(mv[0], mv[1], 0); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if err := syncDir(s.path("branches")); err != nil {
		return err
	}
	return syncDir(s.path("trash"))
}
