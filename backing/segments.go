package backing

import (
	"fmt"
	"sort"
)

// A View's arithmetic of counts and turns, the same for every engine: a
// view is the first messages of each branch of its ancestry, as
// segments, and where each branch's own messages open turns and which
// are events (Marks) is all the turn rule needs. An engine keeps Marks
// for each branch as it indexes it, builds a view's Segments from them,
// and keeps beside them only what is its own: where the bytes are.

// Marks are where a branch's own messages open turns, and which are
// events, positions in the branch's own messages, ascending. They only
// grow: a view takes them as they are and cuts them to its length.
type Marks struct {
	Prompts []int32 // the prompts, each opening a turn
	Turns   []int32 // Turns[k] is where Prompts[k]'s turn starts (TurnStart)
	Events  []int32 // the events (EventRole)
	Typed   []int32 // the typed events among them (Kind.Typed)
}

// Push marks message i, of kind k, the next of the branch; kind(j) is the
// kind of an earlier one, for TurnStart.
func (m *Marks) Push(i int, k Kind, kind func(j int) Kind) {
	if k.Event {
		m.Events = append(m.Events, int32(i))
	}
	if k.Typed {
		m.Typed = append(m.Typed, int32(i))
	}
	if k.Prompt {
		m.Prompts = append(m.Prompts, int32(i))
		m.Turns = append(m.Turns, int32(TurnStart(i, kind)))
	}
}

// Segments are a view's messages: the segments of its branch's ancestry,
// the root's first. The zero value is a view of nothing; the name of the
// branch shown is for errors.
type Segments struct {
	Name string // the branch's name
	segs []span
	n    int
}

// span is one segment: n messages, message i of it message first+i of
// the view, with its turn starts and events among them.
type span struct {
	first, n    int
	turns       []int32 // positions in the segment where a turn starts
	events      []int32 // positions in the segment of the events
	typed       []int32 // positions in the segment of the typed events
	turnsBefore int     // turns started by messages before the segment
}

// Add appends the segment of the first n messages of a branch whose marks
// are m. A turn is in the view when its prompt is: context cut off from
// its prompt by a fork point stays in the turn before.
func (s *Segments) Add(n int, m Marks) {
	sp := span{first: s.n, n: n,
		turns:  m.Turns[:sort.Search(len(m.Prompts), func(k int) bool { return int(m.Prompts[k]) >= n })],
		events: m.Events[:sort.Search(len(m.Events), func(k int) bool { return int(m.Events[k]) >= n })],
		typed:  m.Typed[:sort.Search(len(m.Typed), func(k int) bool { return int(m.Typed[k]) >= n })]}
	if len(s.segs) > 0 {
		last := s.segs[len(s.segs)-1]
		sp.turnsBefore = last.turnsBefore + len(last.turns)
	}
	s.segs = append(s.segs, sp)
	s.n += n
}

// Len is the number of messages, events included.
func (s *Segments) Len() int { return s.n }

// Inherited is how many messages come from the branch's ancestors: all
// but the last segment's.
func (s *Segments) Inherited() int { return s.segs[len(s.segs)-1].first }

// Locate is where message i of the view is: message local of segment
// seg; ok false when the view has no message i.
func (s *Segments) Locate(i int) (seg, local int, ok bool) {
	for k, sp := range s.segs {
		if i >= sp.first && i < sp.first+sp.n {
			return k, i - sp.first, true
		}
	}
	return 0, 0, false
}

// Range is the part of segment Seg in messages [from, to) of a view:
// its messages [A, B), messages [First+A, First+B) of the view.
type Range struct{ Seg, First, A, B int }

// Ranges are the parts of the segments in messages [from, to), in order:
// what an engine reads for View.Read.
func (s *Segments) Ranges(from, to int) []Range {
	var out []Range
	for i, sp := range s.segs {
		a, b := max(from, sp.first)-sp.first, min(to, sp.first+sp.n)-sp.first
		if a < b {
			out = append(out, Range{Seg: i, First: sp.first, A: a, B: b})
		}
	}
	return out
}

// Messages are messages [from, from+len(raws)) of the view, their bytes
// raws, with their turns.
func (s *Segments) Messages(from int, raws [][]byte) []Message {
	out := make([]Message, 0, len(raws))
	turn := s.starts(from)
	for _, r := range s.Ranges(from, from+len(raws)) {
		sp := s.segs[r.Seg]
		next := sort.Search(len(sp.turns), func(k int) bool { return int(sp.turns[k]) >= r.A })
		nextEvent := sort.Search(len(sp.events), func(k int) bool { return int(sp.events[k]) >= r.A })
		for i := r.A; i < r.B; i++ {
			idx := sp.first + i
			flagged := next < len(sp.turns) && int(sp.turns[next]) == i
			if flagged {
				turn++
				next++
			}
			// The first flagged message continues turn 1 when messages
			// (a system prompt, say) came before it.
			start := idx == 0 || (flagged && turn >= 2)
			event := nextEvent < len(sp.events) && int(sp.events[nextEvent]) == i
			if event {
				nextEvent++
			}
			out = append(out, Message{Index: idx, Turn: max(1, turn), TurnStart: start, Event: event, Raw: raws[idx-from]})
		}
	}
	return out
}

// Events is how many of the messages are events (role EventRole): lines
// kept for fidelity, not conversation.
func (s *Segments) Events() int {
	n := 0
	for _, sp := range s.segs {
		n += len(sp.events)
	}
	return n
}

// Typed is where the typed events are (Kind.Typed), ascending: what
// tasks.json, memory.json and checkpoints read, without
// reading the messages around them.
func (s *Segments) Typed() []int {
	return s.positions(func(sp *span) []int32 { return sp.typed })
}

// TypedBefore is how many typed events are among the messages [0, i);
// TypedAt is where the j-th of them is. Unlike Typed, neither makes a
// slice: a question asked for every turn costs the segments, not the
// branch.
func (s *Segments) TypedBefore(i int) int {
	return s.before(i, func(sp *span) []int32 { return sp.typed })
}

func (s *Segments) TypedAt(j int) int {
	for _, sp := range s.segs {
		if j < len(sp.typed) {
			return sp.first + int(sp.typed[j])
		}
		j -= len(sp.typed)
	}
	return -1
}

// EventsAt is where the events are (role EventRole, typed or imported),
// ascending: what events.jsonl lists, found without reading a message.
func (s *Segments) EventsAt() []int {
	return s.positions(func(sp *span) []int32 { return sp.events })
}

// positions is the positions in the branch of what of picks of each
// segment (positions in it), ascending.
func (s *Segments) positions(of func(*span) []int32) []int {
	n := 0
	for i := range s.segs {
		n += len(of(&s.segs[i]))
	}
	out := make([]int, 0, n)
	for i := range s.segs {
		sp := &s.segs[i]
		for _, p := range of(sp) {
			out = append(out, sp.first+int(p))
		}
	}
	return out
}

// Visible is the number of messages a person counts: every message but
// the events. Listings, info.json and fork --at-message count these.
func (s *Segments) Visible() int { return s.n - s.Events() }

// VisibleBefore is how many of the messages [0, i) are not events.
func (s *Segments) VisibleBefore(i int) int {
	return i - s.before(i, func(sp *span) []int32 { return sp.events })
}

// before counts what of picks of each segment among the messages [0, i).
func (s *Segments) before(i int, of func(*span) []int32) int {
	n := 0
	for k := range s.segs {
		sp := &s.segs[k]
		if i <= sp.first {
			break
		}
		local, at := min(i-sp.first, sp.n), of(sp)
		n += sort.Search(len(at), func(j int) bool { return int(at[j]) >= local })
	}
	return n
}

// AfterVisible is the position just past the k-th visible message (k >= 1),
// 0 for k == 0: a cut there keeps the first k visible messages and the
// events among them, and leaves the events that follow to what comes next.
func (s *Segments) AfterVisible(k int) (int, error) {
	if k < 0 || k > s.Visible() {
		return 0, Sentencef(ErrInvalid, "fork point %d: branch %q has %s", k, s.Name, Plural(s.Visible(), "message"))
	}
	if k == 0 {
		return 0, nil
	}
	// The first position i with k visible messages in [0, i).
	return sort.Search(s.n+1, func(i int) bool { return s.VisibleBefore(i) >= k }), nil
}

// starts is the number of messages in [0, i) flagged as turn starts.
func (s *Segments) starts(i int) int {
	for _, sp := range s.segs {
		if i <= sp.first+sp.n {
			local := i - sp.first
			return sp.turnsBefore + sort.Search(len(sp.turns), func(k int) bool { return int(sp.turns[k]) >= local })
		}
	}
	last := s.segs[len(s.segs)-1]
	return last.turnsBefore + len(last.turns)
}

// Turns is the number of turns: a turn starts at each prompt (Kind) or at
// the injected context right before it, and the messages before the first
// one belong to turn 1 along with it.
func (s *Segments) Turns() int {
	if s.n == 0 {
		return 0
	}
	return max(1, s.starts(s.n))
}

// TurnRange returns the messages [from, to) of turn k (1-based).
func (s *Segments) TurnRange(k int) (from, to int, err error) {
	if k < 1 || k > s.Turns() {
		return 0, 0, fmt.Errorf("turn %d: %w (branch %q has %s)", k, ErrNotFound, s.Name, Plural(s.Turns(), "turn"))
	}
	from, to = s.turnStart(k), s.n
	if k < s.Turns() {
		to = s.turnStart(k + 1)
	}
	return from, to, nil
}

// turnStart is where turn k opens: 0 for turn 1, the k-th flagged message
// for k >= 2 (the messages before the first flag belong to turn 1 along
// with it). Found in the segment holding that flag, without a search
// over the messages: a rendering asks it for every turn.
func (s *Segments) turnStart(k int) int {
	if k == 1 {
		return 0
	}
	j := sort.Search(len(s.segs), func(j int) bool { return s.segs[j].turnsBefore+len(s.segs[j].turns) >= k })
	sp := &s.segs[j]
	return sp.first + int(sp.turns[k-1-sp.turnsBefore])
}

// TurnOf is the turn message i belongs to (1-based).
func (s *Segments) TurnOf(i int) int { return max(1, s.starts(i+1)) }

// Plural says "1 turn", "2 turns".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
