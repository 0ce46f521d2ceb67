package filestore

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/sessfs/sessfs/backing"
)

// checkBranches checks branch files (by the store's own rules, see
// readBranches), ancestry, fork points and logs.
func (c *fsck) checkBranches(s *Session) {
	s.dropBranchCache()
	list, bad, err := s.readBranches()
	if err != nil {
		c.cannot(s.id, s.path("branches"), err)
		return
	}
	badIDs := map[string]bool{}
	for _, b := range bad {
		badIDs[b.ID] = true
		if !errors.Is(b.Err, ErrSymlink) {
			c.report(s.id, s.branchFile(b.ID), fmt.Sprintf("branch file cannot be used: %v; left out of the branch list, the session's other branches work; a human must mend or remove it", b.Err), nil)
		}
	}
	byID := map[string]backing.Branch{}
	for _, b := range list {
		byID[b.ID] = b
	}
	// Parents first: restoring one from the trash changes what follows.
	restorable, rootRestorable := false, false
	for _, b := range list {
		if _, ok := byID[b.Parent]; b.IsDefault() || ok {
			continue
		}
		if badIDs[b.Parent] {
			c.report(s.id, s.branchFile(b.ID), fmt.Sprintf("branch %q: its parent %s is left out (see its branch file); it cannot be read until that is mended", b.Name, b.Parent), nil)
			continue
		}
		ok, root := c.checkParent(s, b)
		restorable = restorable || ok
		rootRestorable = rootRestorable || root
	}
	if restorable && c.repair {
		s.dropBranchCache()
		if list, _, err = s.readBranches(); err != nil {
			c.cannot(s.id, s.path("branches"), err)
			return
		}
		for _, b := range list {
			byID[b.ID] = b
		}
	}
	root := false
	for _, b := range list {
		c.checkLog(s, b)
		if b.IsDefault() {
			root = true
		} else if _, ok := byID[b.Parent]; ok {
			c.checkForkPoint(s, b)
		}
	}
	// A default branch in the trash is reported above as a parent that
	// repair restores; a repair run that restored it has just listed it.
	if !root && !(rootRestorable && !c.repair) {
		c.report(s.id, s.path("branches"), "no usable default branch: the session's default views fail until it is mended", nil)
	}
	c.checkSealedOrphans(s)
	// Every branch file's id, usable or not, owns its log.
	c.checkOrphanLogs(s, func(id string) bool {
		_, ok := byID[id]
		return ok || badIDs[id]
	})
}

// checkParent handles a branch whose parent is gone: if the parent is in
// the session's trash, it comes back; else a human must decide.
// It reports whether the parent is in the trash (and so restorable), and
// whether its file there says it is the default branch.
func (c *fsck) checkParent(s *Session, b backing.Branch) (restorable, root bool) {
	tj, tl := s.path("trash", b.Parent+".json"), s.path("trash", b.Parent+".jsonl")
	data, err := readFile(tj)
	if err != nil {
		c.report(s.id, s.branchFile(b.ID), fmt.Sprintf("branch %q: parent %s is gone", b.Name, b.Parent), nil)
		return false, false
	}
	var p backing.Branch
	root = json.Unmarshal(data, &p) == nil && p.IsDefault()
	c.report(s.id, s.branchFile(b.ID), fmt.Sprintf("branch %q: parent %s is in the session's trash; repair restores it", b.Name, b.Parent), func() error {
		if err := moveLog(tl, s.logFile(b.Parent)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return rename(tj, s.branchFile(b.Parent), 0)
	})
	return true, root
}

// checkForkPoint wants a branch to continue its parent's log at the end of
// a line of it: readers keep the parent's whole messages before the fork
// point, so one in the middle of a line drops that message without a word.
func (c *fsck) checkForkPoint(s *Session, b backing.Branch) {
	f, err := openLogFile(s.logFile(b.Parent), &sealedSource{path: sealedPath(s.logFile(b.Parent))})
	if errors.Is(err, os.ErrNotExist) {
		return // reported as the parent's missing log
	}
	if err != nil {
		c.cannot(s.id, s.logFile(b.Parent), err)
		return
	}
	defer f.Close()
	if f.zerr != nil {
		return // reported with the parent's log
	}
	if b.ParentOffset > f.Size() {
		c.report(s.id, s.branchFile(b.ID), fmt.Sprintf("branch %q forks at byte %d of its parent's log, which has %d", b.Name, b.ParentOffset, f.Size()), nil)
		return
	}
	if !endsLine(f, b.ParentOffset) {
		c.report(s.id, s.branchFile(b.ID), fmt.Sprintf("branch %q forks at byte %d of its parent's log, in the middle of a line: the branch shows the parent's messages up to the line before", b.Name, b.ParentOffset), nil)
	}
}

func (c *fsck) checkLog(s *Session, b backing.Branch) {
	p := s.logFile(b.ID)
	f, err := openLogFile(p, &sealedSource{path: sealedPath(p)})
	if errors.Is(err, os.ErrNotExist) {
		c.report(s.id, p, fmt.Sprintf("branch %q has no log; repair creates an empty one", b.Name), func() error {
			return createExclusive(p, nil)
		})
		return
	}
	if err != nil {
		c.cannot(s.id, p, err)
		return
	}
	defer f.Close()
	if !c.checkSealed(s, p, f) {
		return
	}
	_, torn, err := tornTail(f)
	if err != nil {
		c.cannot(s.id, p, err)
		return
	}
	if torn != nil {
		c.note(s.id, p, fmt.Sprintf("torn last line (%d bytes) of an append a crash interrupted, never acknowledged; readers ignore it; the next append, or repair, moves it to quarantine", len(torn)), func() error {
			_, err := s.cutTornTail(b.ID)
			return err
		})
	}
	x := newLogIndex(p, "") // the log itself, never what was kept of it
	if err := x.refresh(); err != nil {
		c.cannot(s.id, p, err)
		return
	}
	for _, bad := range x.bad {
		c.report(s.id, p, fmt.Sprintf("line %d (byte %d) is not a message: %v; readers skip it; repair moves it to quarantine and blanks it in place", bad.Line, bad.Offset, bad.Err), func() error {
			return s.blankLine(b.ID, bad.Offset)
		})
	}
}

// checkOrphanLogs finds logs of no branch file: an empty one is what an
// interrupted fork leaves; one with messages, an interrupted branch delete
// (or a lost branch file), and it goes to the session's trash.
func (c *fsck) checkOrphanLogs(s *Session, owned func(id string) bool) {
	ents, err := readDir(s.path("logs"))
	if err != nil {
		c.cannot(s.id, s.path("logs"), err)
		return
	}
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || owned(id) || e.Type()&fs.ModeSymlink != 0 {
			continue
		}
		p := s.path("logs", e.Name())
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() && fi.Size() == 0 {
			c.note(s.id, p, "empty log of no branch, left by an interrupted fork; repair removes it", func() error {
				return remove(p)
			})
			continue
		}
		c.report(s.id, p, "log of no branch (an interrupted branch delete?); repair moves it to the session's trash", func() error {
			if err := mkdirExisting(s.path("trash")); err != nil {
				return err
			}
			return moveLog(p, s.path("trash", e.Name()))
		})
	}
}
