package filestore

import (
	"fmt"
	"sort"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// View is a branch as of one moment: its messages with ancestry resolved,
// as segments of the logs of the branch and its ancestors. Building one
// costs an fstat per log and an index scan of bytes not seen before; reading
// from it costs one pread per segment touched.
type View struct {
	backing.Segments // counts and turns
	branch           backing.Branch
	segs             []segment // where Segments' segments are, in the same order
	mtime            time.Time // of the branch's own log
}

// segment is where a segment's messages are: refs[i] is message i of the
// segment.
type segment struct {
	branchID string
	x        *logIndex
	refs     []msgRef
	bad      []backing.BadLine // lines of this log that are not messages
}

// logIndex returns the process-wide index of a branch's own log.
func (s *Session) logIndex(branchID string) *logIndex {
	s.mu.Lock()
	defer s.mu.Unlock()
	x := s.logs[branchID]
	if x == nil {
		x = newLogIndex(s.logFile(branchID), s.keptIndexPath(branchID))
		s.logs[branchID] = x
	}
	return x
}

// ViewID resolves a branch by id ("" is the default branch); a handle that
// follows a branch by id keeps working when the branch is renamed.
func (s *Session) ViewID(id string) (backing.View, error) {
	b, err := s.BranchByID(id)
	if err != nil {
		return nil, err
	}
	v, err := s.view(b)
	if err != nil {
		return nil, err
	}
	return v, nil
}

// logSpan is a log a branch reads and how many bytes of it count: all of
// the branch's own (end -1), an ancestor's up to the fork point.
type logSpan struct {
	id  string
	end int64
}

// ancestry walks from b up to the root: the logs b reads, its own first.
func (s *Session) ancestry(b backing.Branch) ([]logSpan, error) {
	chain := []logSpan{{b.ID, -1}}
	seen := map[string]bool{b.ID: true}
	for cur := b; !cur.IsDefault(); {
		p, err := s.BranchByID(cur.Parent)
		if err != nil {
			return nil, fmt.Errorf("branch %q: parent: %w", cur.Name, err)
		}
		if seen[p.ID] {
			return nil, fmt.Errorf("%w: branch %q: ancestry has a cycle", backing.ErrInvalid, b.Name)
		}
		seen[p.ID] = true
		chain = append(chain, logSpan{p.ID, cur.ParentOffset})
		cur = p
	}
	return chain, nil
}

func (s *Session) view(b backing.Branch) (*View, error) {
	chain, err := s.ancestry(b)
	if err != nil {
		return nil, err
	}
	v := &View{Segments: backing.Segments{Name: b.Name}, branch: b}
	for i := len(chain) - 1; i >= 0; i-- {
		x := s.logIndex(chain[i].id)
		x.mu.Lock()
		err := x.refresh()
		refs, marks, mtime, bad := x.msgs, x.marks, x.mtime, x.bad
		x.mu.Unlock()
		if err != nil {
			return nil, err
		}
		if end := chain[i].end; end >= 0 {
			refs = refs[:sort.Search(len(refs), func(k int) bool { return refs[k].end() > end })]
		}
		v.Add(len(refs), marks)
		v.segs = append(v.segs, segment{branchID: chain[i].id, x: x, refs: refs, bad: bad})
		if i == 0 {
			v.mtime = mtime
		}
	}
	return v, nil
}

// Problems lists the lines the view skipped, in the logs it reads.
func (v *View) Problems() []backing.ViewProblem {
	var out []backing.ViewProblem
	for _, sg := range v.segs {
		for _, b := range sg.bad {
			out = append(out, backing.ViewProblem{Branch: sg.branchID, BadLine: b})
		}
	}
	return out
}

// Branch is the branch the view shows.
func (v *View) Branch() backing.Branch { return v.branch }

// RawLen is the length of message i's stored line, without its newline,
// known from the index without reading the log.
func (v *View) RawLen(i int) int {
	if k, j, ok := v.Locate(i); ok {
		return int(v.segs[k].refs[j].n)
	}
	panic(fmt.Sprintf("backing: RawLen(%d) of a view of %d messages", i, v.Len()))
}

// ModTime is when the branch's own log last changed.
func (v *View) ModTime() time.Time { return v.mtime }

// Read returns messages [from, to), one pread per segment.
func (v *View) Read(from, to int) ([]backing.Message, error) {
	if from < 0 || to > v.Len() || from > to {
		return nil, fmt.Errorf("%w: messages [%d, %d) of %d", backing.ErrInvalid, from, to, v.Len())
	}
	raws := make([][]byte, 0, to-from)
	for _, r := range v.Ranges(from, to) {
		sg := v.segs[r.Seg]
		got, err := sg.x.readRange(sg.refs[r.A:r.B])
		if err != nil {
			return nil, err
		}
		raws = append(raws, got...)
	}
	return v.Messages(from, raws), nil
}

// forkPoint names the log and offset just past message at-1, so a fork
// there depends on no more history than it shows.
func (v *View) forkPoint(at int) (parent string, offset int64) {
	if at == 0 {
		return v.segs[0].branchID, 0
	}
	k, j, _ := v.Locate(at - 1) // at <= Len: Fork checks
	return v.segs[k].branchID, v.segs[k].refs[j].end()
}
