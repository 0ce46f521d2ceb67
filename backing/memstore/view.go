package memstore

import (
	"fmt"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// View is a branch as of one moment: the first messages of each branch of
// its ancestry, as segments (backing.Segments does the counts and turns),
// and the lines they are.
type View struct {
	backing.Segments
	branch backing.Branch
	segs   [][][]byte // each segment's lines, in Segments' order
	mtime  time.Time
}

var _ backing.View = (*View)(nil)

// ViewID is branch id ("" the default one) as of now.
func (h *Session) ViewID(id string) (backing.View, error) {
	var v *View
	err := h.read(func(s *session) error {
		b, err := s.byID(id)
		if err == nil {
			v = s.view(b)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

// view is b as of now. The caller holds the store's lock; the view keeps
// prefixes of slices that only grow, so it needs none after.
func (s *session) view(b *branch) *View {
	chain := s.chain(b)
	v := &View{Segments: backing.Segments{Name: b.b.Name}, branch: b.b, mtime: b.mtime}
	for i := len(chain) - 1; i >= 0; i-- {
		sp := chain[i]
		v.Add(sp.n, sp.b.marks)
		v.segs = append(v.segs, sp.b.lines[:sp.n:sp.n])
	}
	return v
}

// Branch is the branch the view shows.
func (v *View) Branch() backing.Branch { return v.branch }

// ModTime is when the branch's own messages last changed.
func (v *View) ModTime() time.Time { return v.mtime }

// Problems is empty: memory holds nothing that is not a message.
func (v *View) Problems() []backing.ViewProblem { return nil }

// RawLen is message i's stored length.
func (v *View) RawLen(i int) int {
	if k, j, ok := v.Locate(i); ok {
		return len(v.segs[k][j])
	}
	panic(fmt.Sprintf("memstore: RawLen(%d) of a view of %d messages", i, v.Len()))
}

// Read returns messages [from, to) with their turns.
func (v *View) Read(from, to int) ([]backing.Message, error) {
	if from < 0 || to > v.Len() || from > to {
		return nil, fmt.Errorf("%w: messages [%d, %d) of %d", backing.ErrInvalid, from, to, v.Len())
	}
	raws := make([][]byte, 0, to-from)
	for _, r := range v.Ranges(from, to) {
		raws = append(raws, v.segs[r.Seg][r.A:r.B]...)
	}
	return v.Messages(from, raws), nil
}
