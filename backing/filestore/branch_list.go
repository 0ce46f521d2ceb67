package filestore

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// branchCache holds the branch list until the branches folder changes:
// every branch change renames or creates a file there, which moves the
// folder's mtime. The kernel stamps mtimes from a coarse clock (one tick,
// at most 10 ms), so a list read within racyWindow of the folder's mtime is
// not trusted: a change in the same tick would not move it (the "racy git"
// rule). This process's own changes drop the cache outright.
type branchCache struct {
	mtime, read time.Time
	list        []backing.Branch
	bad         []backing.BadBranch
}

const racyWindow = 100 * time.Millisecond

func (s *Session) dropBranchCache() {
	s.mu.Lock()
	s.branches = branchCache{}
	s.mu.Unlock()
}

// Branches lists the session's usable branches, the default one first;
// BadBranches says which it left out.
func (s *Session) Branches() ([]backing.Branch, error) {
	c, err := s.branchList()
	return c.list, err
}

// BadBranches lists the branch files Branches leaves out, and why.
func (s *Session) BadBranches() ([]backing.BadBranch, error) {
	c, err := s.branchList()
	return c.bad, err
}

func (s *Session) branchList() (branchCache, error) {
	// Lstat: the folder's mtime only says whether to read it again, and
	// the read refuses a link.
	fi, err := os.Lstat(s.path("branches"))
	if err != nil {
		return branchCache{}, err
	}
	s.mu.Lock()
	c := s.branches
	s.mu.Unlock()
	if c.list != nil && c.mtime.Equal(fi.ModTime()) && c.read.Sub(c.mtime) > racyWindow {
		return c, nil
	}
	read := time.Now()
	list, bad, err := s.readBranches()
	if err != nil {
		return branchCache{}, err
	}
	c = branchCache{mtime: fi.ModTime(), read: read, list: list, bad: bad}
	s.mu.Lock()
	s.branches = c
	s.mu.Unlock()
	return c, nil
}

// readBranches reads every branch file and applies the rules of the set.
// Of two default branches, or two branches of one name, the older (then
// the lower id) is kept: the same one in every process and every run.
func (s *Session) readBranches() (list []backing.Branch, bad []backing.BadBranch, err error) {
	ents, err := readDir(s.path("branches"))
	if err != nil {
		return nil, nil, err
	}
	var all []backing.Branch
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || isTemp(e.Name()) {
			continue
		}
		b, err := s.readBranch(id)
		switch {
		case errors.Is(err, os.ErrNotExist):
			continue // deleted since the folder was read
		case err != nil:
			bad = append(bad, backing.BadBranch{ID: id, Name: b.Name, Err: err})
		default:
			all = append(all, b)
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if !all[i].Created.Equal(all[j].Created) {
			return all[i].Created.Before(all[j].Created)
		}
		return all[i].ID < all[j].ID
	})
	list = []backing.Branch{}
	byName := map[string]backing.Branch{}
	var root backing.Branch
	for _, b := range all {
		switch first, dup := byName[b.Name]; {
		case b.IsDefault() && root.ID != "":
			bad = append(bad, backing.BadBranch{ID: b.ID, Name: b.Name, Err: backing.Sentencef(backing.ErrInvalid, "a second default branch (the default is %q, %s)", root.Name, root.ID)})
		case dup:
			bad = append(bad, backing.BadBranch{ID: b.ID, Name: b.Name, Err: backing.Sentencef(backing.ErrInvalid, "a second branch named %q (the first is %s)", b.Name, first.ID)})
		default:
			byName[b.Name] = b
			list = append(list, b)
			if b.IsDefault() {
				root = b
			}
		}
	}
	backing.SortBranches(list)
	sort.Slice(bad, func(i, j int) bool { return bad[i].ID < bad[j].ID })
	return list, bad, nil
}

// readBranch reads one branch file and checks it on its own: what it says
// must be usable as a path element (its id), shown by ls (its name), and
// resolvable (a parent that is an id, a fork point that is not negative;
// fsck also checks that it ends a line of the parent's log). Its errors
// say what is wrong with the file without naming it: BadBranch keeps the
// id, and whoever shows the error says which file it is.
func (s *Session) readBranch(id string) (backing.Branch, error) {
	var b backing.Branch
	if backing.ValidName(id) != nil {
		return b, backing.Sentencef(backing.ErrInvalid, "not named for a branch id")
	}
	data, err := readFile(s.branchFile(id))
	if err != nil {
		return b, withoutPath(err)
	}
	if err := json.Unmarshal(data, &b); err != nil {
		return backing.Branch{}, backing.Sentencef(backing.ErrInvalid, "not valid JSON: %v", err)
	}
	if b.ID != id {
		return b, backing.Sentencef(backing.ErrInvalid, "it holds id %q", b.ID)
	}
	if err := backing.ValidName(b.Name); err != nil {
		return b, backing.Sentencef(backing.ErrInvalid, "%v", err)
	}
	switch {
	case b.Parent != "" && (backing.ValidName(b.Parent) != nil || b.Parent == b.ID):
		return b, backing.Sentencef(backing.ErrInvalid, "parent %q is not another branch's id", b.Parent)
	case b.ParentOffset < 0:
		return b, backing.Sentencef(backing.ErrInvalid, "fork point %d is negative", b.ParentOffset)
	}
	return b, nil
}

// withoutPath is err less the path an *os.PathError names, for an error
// kept beside the file it is about.
func withoutPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}
