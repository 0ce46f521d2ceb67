package pgstore

import (
	"context"
	"fmt"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// View is a branch as of one moment: the first messages of each branch of
// its ancestry, as segments. Building one costs a query of the session's
// branch rows and one of the messages appended since the process last
// looked; reading from it one query, whatever the segments it crosses.
type View struct {
	backing.Segments // counts and turns
	s                *Session
	branch           backing.Branch
	segs             []segment // what Segments' segments are, in the same order
	mtime            time.Time
}

// segment is the first len(lens) own messages of one branch, with their
// stored lengths.
type segment struct {
	branchID string
	lens     []int32
}

// ViewID is branch id ("" the default one) as of now.
func (s *Session) ViewID(id string) (backing.View, error) {
	if id != "" && !validID(id) {
		return nil, fmt.Errorf("branch id %q: %w", id, backing.ErrNotFound)
	}
	var v *View
	err := s.st.read(func(ctx context.Context) error {
		set, err := s.cachedBranches(ctx)
		if err != nil {
			return err
		}
		b, err := set.byID(id)
		if err != nil {
			return err
		}
		v, err = s.view(ctx, set, b)
		return err
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

func (s *Session) view(ctx context.Context, set branchSet, b branchRow) (*View, error) {
	chain, err := set.chain(b)
	if err != nil {
		return nil, err
	}
	v := &View{Segments: backing.Segments{Name: b.Name}, s: s, branch: b.branch(), mtime: b.ModTime}
	for i := len(chain) - 1; i >= 0; i-- {
		sp := chain[i]
		x := s.ownIndex(sp.id)
		x.mu.Lock()
		if err := x.fill(ctx, s.st.pool, s.id, sp.id, sp.n); err != nil {
			x.mu.Unlock()
			return nil, err
		}
		lens, marks := x.lens[:sp.n], x.marks
		x.mu.Unlock()
		v.Add(len(lens), marks)
		v.segs = append(v.segs, segment{branchID: sp.id, lens: lens})
	}
	return v, nil
}

// Branch is the branch the view shows.
func (v *View) Branch() backing.Branch { return v.branch }

// ModTime is when the branch's own messages last changed.
func (v *View) ModTime() time.Time { return v.mtime }

// Problems is empty: the database holds nothing that is not a message.
func (v *View) Problems() []backing.ViewProblem { return nil }

// RawLen is message i's stored length, from the index.
func (v *View) RawLen(i int) int {
	if k, j, ok := v.Locate(i); ok {
		return int(v.segs[k].lens[j])
	}
	panic(fmt.Sprintf("pgstore: RawLen(%d) of a view of %d messages", i, v.Len()))
}

// Read returns messages [from, to) with their turns, in one query: each
// segment's range by the primary key.
func (v *View) Read(from, to int) ([]backing.Message, error) {
	if from < 0 || to > v.Len() || from > to {
		return nil, fmt.Errorf("%w: messages [%d, %d) of %d", backing.ErrInvalid, from, to, v.Len())
	}
	if from == to {
		return []backing.Message{}, nil
	}
	var ids []string
	var los, his []int64
	for _, r := range v.Ranges(from, to) {
		ids, los, his = append(ids, v.segs[r.Seg].branchID), append(los, int64(r.A)), append(his, int64(r.B))
	}
	var raws [][]byte
	err := v.s.st.read(func(ctx context.Context) (err error) {
		raws, err = v.s.readRaw(ctx, ids, los, his, to-from)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(raws) != to-from {
		return nil, fmt.Errorf("%w: read %d messages of [%d, %d)", backing.ErrDamaged, len(raws), from, to)
	}
	return v.Messages(from, raws), nil
}

// readRaw reads the stored bytes of the segments' ranges, in order.
func (s *Session) readRaw(ctx context.Context, ids []string, los, his []int64, n int) ([][]byte, error) {
	rows, err := s.st.pool.Query(ctx, `SELECT m.raw
		FROM unnest($2::uuid[], $3::bigint[], $4::bigint[]) WITH ORDINALITY AS r(branch_id, lo, hi, o)
		JOIN messages m ON m.session_id = $1 AND m.branch_id = r.branch_id AND m.seq >= r.lo AND m.seq < r.hi
		ORDER BY r.o, m.seq`, s.id, ids, los, his)
	if err != nil {
		return nil, err
	}
	raws := make([][]byte, 0, n)
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			rows.Close()
			return nil, err
		}
		raws = append(raws, raw)
	}
	return raws, rows.Err()
}
