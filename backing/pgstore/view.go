package pgstore

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// View is a branch as of one moment: the first messages of each branch of
// its ancestry, as segments. Building one costs a query of the session's
// branch rows and one of the messages appended since the process last
// looked; reading from it one query, whatever the segments it crosses.
type View struct {
	s      *Session
	branch backing.Branch
	segs   []segment
	n      int
	mtime  time.Time
}

// segment is the first len(lens) own messages of one branch: message i of
// the segment is message first+i of the view.
type segment struct {
	branchID    string
	lens        []int32
	turns       []int32 // positions in the segment where a turn starts
	events      []int32 // positions in the segment of the events
	first       int
	turnsBefore int // turns started by messages before this segment
}

// ViewID is branch id ("" the default one) as of now.
func (s *Session) ViewID(id string) (backing.View, error) {
	if id != "" && !validID(id) {
		return nil, fmt.Errorf("branch id %q: %w", id, backing.ErrNotFound)
	}
	var v *View
	err := s.st.read(func(ctx context.Context) error {
		set, err := s.loadBranches(ctx, s.st.pool)
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
	v := &View{s: s, branch: b.branch(), mtime: b.ModTime}
	for i := len(chain) - 1; i >= 0; i-- {
		sp := chain[i]
		x := s.ownIndex(sp.id)
		x.mu.Lock()
		if err := x.fill(ctx, s.st.pool, s.id, sp.id, sp.n); err != nil {
			x.mu.Unlock()
			return nil, err
		}
		lens, prompts, turns, events := x.lens[:sp.n], x.prompts, x.turns, x.events
		x.mu.Unlock()
		// A turn is in the view when its prompt is: context cut off from
		// its prompt by a fork point stays in the turn before.
		turns = turns[:sort.Search(len(prompts), func(k int) bool { return int(prompts[k]) >= len(lens) })]
		events = events[:sort.Search(len(events), func(k int) bool { return int(events[k]) >= len(lens) })]
		seg := segment{branchID: sp.id, lens: lens, turns: turns, events: events, first: v.n}
		if len(v.segs) > 0 {
			last := v.segs[len(v.segs)-1]
			seg.turnsBefore = last.turnsBefore + len(last.turns)
		}
		v.segs = append(v.segs, seg)
		v.n += len(lens)
	}
	return v, nil
}

// Branch is the branch the view shows.
func (v *View) Branch() backing.Branch { return v.branch }

// Len is the number of messages.
func (v *View) Len() int { return v.n }

// Inherited is how many messages come from the branch's ancestors.
func (v *View) Inherited() int { return v.segs[len(v.segs)-1].first }

// ModTime is when the branch's own messages last changed.
func (v *View) ModTime() time.Time { return v.mtime }

// Problems is empty: the database holds nothing that is not a message.
func (v *View) Problems() []backing.ViewProblem { return nil }

// RawLen is message i's stored length, from the index.
func (v *View) RawLen(i int) int {
	for _, sg := range v.segs {
		if i < sg.first+len(sg.lens) {
			return int(sg.lens[i-sg.first])
		}
	}
	panic(fmt.Sprintf("pgstore: RawLen(%d) of a view of %d messages", i, v.n))
}

// Events is how many messages are events.
func (v *View) Events() int {
	n := 0
	for _, sg := range v.segs {
		n += len(sg.events)
	}
	return n
}

// Visible is how many messages are not events.
func (v *View) Visible() int { return v.n - v.Events() }

// VisibleBefore counts the messages in [0, i) that are not events.
func (v *View) VisibleBefore(i int) int {
	ev := 0
	for _, sg := range v.segs {
		if i <= sg.first {
			break
		}
		local := min(i-sg.first, len(sg.lens))
		ev += sort.Search(len(sg.events), func(k int) bool { return int(sg.events[k]) >= local })
	}
	return i - ev
}

// AfterVisible is the position just past the k-th visible message, 0 for
// k == 0: events after it are left to what comes next.
func (v *View) AfterVisible(k int) (int, error) {
	if k < 0 || k > v.Visible() {
		return 0, backing.Sentencef(backing.ErrInvalid, "fork point %d: branch %q has %s", k, v.branch.Name, plural(v.Visible(), "message"))
	}
	if k == 0 {
		return 0, nil
	}
	return sort.Search(v.n+1, func(i int) bool { return v.VisibleBefore(i) >= k }), nil
}

// starts is the number of turn starts among messages [0, i).
func (v *View) starts(i int) int {
	for _, sg := range v.segs {
		if i <= sg.first+len(sg.lens) {
			local := i - sg.first
			return sg.turnsBefore + sort.Search(len(sg.turns), func(k int) bool { return int(sg.turns[k]) >= local })
		}
	}
	last := v.segs[len(v.segs)-1]
	return last.turnsBefore + len(last.turns)
}

// Turns is the number of turns; messages before the first prompt belong
// to turn 1 with it.
func (v *View) Turns() int {
	if v.n == 0 {
		return 0
	}
	return max(1, v.starts(v.n))
}

// TurnRange is turn k's messages [from, to), k 1-based.
func (v *View) TurnRange(k int) (from, to int, err error) {
	if k < 1 || k > v.Turns() {
		return 0, 0, fmt.Errorf("turn %d: %w (branch %q has %s)", k, backing.ErrNotFound, v.branch.Name, plural(v.Turns(), "turn"))
	}
	startOf := func(k int) int {
		if k == 1 {
			return 0
		}
		return sort.Search(v.n, func(i int) bool { return v.starts(i+1) >= k })
	}
	from, to = startOf(k), v.n
	if k < v.Turns() {
		to = startOf(k + 1)
	}
	return from, to, nil
}

// TurnOf is message i's turn.
func (v *View) TurnOf(i int) int { return max(1, v.starts(i+1)) }

// Read returns messages [from, to) with their turns, in one query: each
// segment's range by the primary key.
func (v *View) Read(from, to int) ([]backing.Message, error) {
	if from < 0 || to > v.n || from > to {
		return nil, fmt.Errorf("%w: messages [%d, %d) of %d", backing.ErrInvalid, from, to, v.n)
	}
	if from == to {
		return []backing.Message{}, nil
	}
	var ids []string
	var los, his []int64
	for _, sg := range v.segs {
		a, b := max(from, sg.first)-sg.first, min(to, sg.first+len(sg.lens))-sg.first
		if a < b {
			ids, los, his = append(ids, sg.branchID), append(los, int64(a)), append(his, int64(b))
		}
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
	return v.messages(from, to, raws), nil
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

// messages are messages [from, to) of the view, their bytes raws, with
// their turns.
func (v *View) messages(from, to int, raws [][]byte) []backing.Message {
	out := make([]backing.Message, 0, to-from)
	turn := v.starts(from)
	k := 0
	for _, sg := range v.segs {
		a, b := max(from, sg.first)-sg.first, min(to, sg.first+len(sg.lens))-sg.first
		if a >= b {
			continue
		}
		next := sort.Search(len(sg.turns), func(j int) bool { return int(sg.turns[j]) >= a })
		for i := a; i < b; i++ {
			idx := sg.first + i
			flagged := next < len(sg.turns) && int(sg.turns[next]) == i
			if flagged {
				turn++
				next++
			}
			// The first flagged message continues turn 1 when messages
			// (a system prompt, say) came before it.
			start := idx == 0 || (flagged && turn >= 2)
			out = append(out, backing.Message{Index: idx, Turn: max(1, turn), TurnStart: start, Raw: raws[k]})
			k++
		}
	}
	return out
}
