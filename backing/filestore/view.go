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
	branch backing.Branch
	segs   []segment
	n      int
	mtime  time.Time // of the branch's own log
}

// segment is a run of messages of one log: refs[i] is message first+i of
// the view.
type segment struct {
	branchID    string
	x           *logIndex
	refs        []msgRef
	turns       []int32 // indexes into refs where a turn starts
	events      []int32 // indexes into refs of the events
	first       int
	turnsBefore int               // turns started by messages before this segment
	bad         []backing.BadLine // lines of this log that are not messages
}

// logIndex returns the process-wide index of a branch's own log.
func (s *Session) logIndex(branchID string) *logIndex {
	s.mu.Lock()
	defer s.mu.Unlock()
	x := s.logs[branchID]
	if x == nil {
		x = newLogIndex(s.logFile(branchID))
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
	v := &View{branch: b}
	for i := len(chain) - 1; i >= 0; i-- {
		x := s.logIndex(chain[i].id)
		x.mu.Lock()
		err := x.refresh()
		refs, prompts, turns, events, mtime, bad := x.msgs, x.prompts, x.turns, x.events, x.mtime, x.bad
		x.mu.Unlock()
		if err != nil {
			return nil, err
		}
		if end := chain[i].end; end >= 0 {
			refs = refs[:sort.Search(len(refs), func(k int) bool { return refs[k].end() > end })]
		}
		// A turn is in the view when its prompt is: context cut off from
		// its prompt by a fork point stays in the turn before.
		turns = turns[:sort.Search(len(prompts), func(k int) bool { return int(prompts[k]) >= len(refs) })]
		events = events[:sort.Search(len(events), func(k int) bool { return int(events[k]) >= len(refs) })]
		seg := segment{branchID: chain[i].id, x: x, refs: refs, turns: turns, events: events, first: v.n, bad: bad}
		if len(v.segs) > 0 {
			last := v.segs[len(v.segs)-1]
			seg.turnsBefore = last.turnsBefore + len(last.turns)
		}
		v.segs = append(v.segs, seg)
		v.n += len(refs)
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

// Len is the number of messages.
func (v *View) Len() int { return v.n }

// RawLen is the length of message i's stored line, without its newline,
// known from the index without reading the log.
func (v *View) RawLen(i int) int {
	for _, sg := range v.segs {
		if i < sg.first+len(sg.refs) {
			return int(sg.refs[i-sg.first].n)
		}
	}
	panic(fmt.Sprintf("backing: RawLen(%d) of a view of %d messages", i, v.n))
}

// Events is how many of the messages are events (role EventRole): lines
// kept for fidelity, not conversation.
func (v *View) Events() int {
	n := 0
	for _, sg := range v.segs {
		n += len(sg.events)
	}
	return n
}

// Visible is the number of messages a person counts: every message but
// the events. Listings, info.json and fork --at-message count these.
func (v *View) Visible() int { return v.n - v.Events() }

// VisibleBefore is how many of the messages [0, i) are not events.
func (v *View) VisibleBefore(i int) int {
	ev := 0
	for _, sg := range v.segs {
		if i <= sg.first {
			break
		}
		local := min(i-sg.first, len(sg.refs))
		ev += sort.Search(len(sg.events), func(k int) bool { return int(sg.events[k]) >= local })
	}
	return i - ev
}

// AfterVisible is the position just past the k-th visible message (k >= 1),
// 0 for k == 0: a cut there keeps the first k visible messages and the
// events among them, and leaves the events that follow to what comes next.
func (v *View) AfterVisible(k int) (int, error) {
	if k < 0 || k > v.Visible() {
		return 0, backing.Sentencef(backing.ErrInvalid, "fork point %d: branch %q has %s", k, v.branch.Name, plural(v.Visible(), "message"))
	}
	if k == 0 {
		return 0, nil
	}
	// The first position i with k visible messages in [0, i).
	return sort.Search(v.n+1, func(i int) bool { return v.VisibleBefore(i) >= k }), nil
}

// Inherited is how many messages come from the branch's ancestors: the
// fork point, counted in messages of the parent branch (events included;
// VisibleBefore(Inherited()) counts it as a person does).
func (v *View) Inherited() int { return v.segs[len(v.segs)-1].first }

// ModTime is when the branch's own log last changed.
func (v *View) ModTime() time.Time { return v.mtime }

// starts is the number of messages in [0, i) flagged as turn starts.
func (v *View) starts(i int) int {
	for _, sg := range v.segs {
		if i <= sg.first+len(sg.refs) {
			local := i - sg.first
			return sg.turnsBefore + sort.Search(len(sg.turns), func(k int) bool { return int(sg.turns[k]) >= local })
		}
	}
	last := v.segs[len(v.segs)-1]
	return last.turnsBefore + len(last.turns)
}

// Turns is the number of turns: a turn starts at each prompt (backing.Kind)
// or at the injected context right before it, and the messages before the
// first one belong to turn 1 along with it.
func (v *View) Turns() int {
	if v.n == 0 {
		return 0
	}
	return max(1, v.starts(v.n))
}

// TurnRange returns the messages [from, to) of turn k (1-based).
func (v *View) TurnRange(k int) (from, to int, err error) {
	if k < 1 || k > v.Turns() {
		return 0, 0, fmt.Errorf("turn %d: %w (branch %q has %s)", k, backing.ErrNotFound, v.branch.Name, plural(v.Turns(), "turn"))
	}
	// Turn k >= 2 opens at the k-th flagged message.
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

// Read returns messages [from, to).
func (v *View) Read(from, to int) ([]backing.Message, error) {
	if from < 0 || to > v.n || from > to {
		return nil, fmt.Errorf("%w: messages [%d, %d) of %d", backing.ErrInvalid, from, to, v.n)
	}
	out := make([]backing.Message, 0, to-from)
	turn := v.starts(from)
	for _, sg := range v.segs {
		a, b := max(from, sg.first)-sg.first, min(to, sg.first+len(sg.refs))-sg.first
		if a >= b {
			continue
		}
		raws, err := sg.x.readRange(sg.refs[a:b])
		if err != nil {
			return nil, err
		}
		next := sort.Search(len(sg.turns), func(k int) bool { return int(sg.turns[k]) >= a })
		for i, raw := range raws {
			idx := sg.first + a + i
			flagged := next < len(sg.turns) && int(sg.turns[next]) == a+i
			if flagged {
				turn++
				next++
			}
			// The first flagged message continues turn 1 when messages
			// (a system prompt, say) came before it.
			start := idx == 0 || (flagged && turn >= 2)
			out = append(out, backing.Message{Index: idx, Turn: max(1, turn), TurnStart: start, Raw: raw})
		}
	}
	return out, nil
}

// forkPoint names the log and offset just past message at-1, so a fork
// there depends on no more history than it shows.
func (v *View) forkPoint(at int) (parent string, offset int64) {
	if at == 0 {
		return v.segs[0].branchID, 0
	}
	for _, sg := range v.segs {
		if at-1 < sg.first+len(sg.refs) {
			return sg.branchID, sg.refs[at-1-sg.first].end()
		}
	}
	last := v.segs[len(v.segs)-1]
	return last.branchID, last.refs[len(last.refs)-1].end()
}

// plural says "1 turn", "2 turns".
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// TurnOf is the turn message i belongs to (1-based).
func (v *View) TurnOf(i int) int { return max(1, v.starts(i+1)) }
