package backing

import (
	"strconv"
)

// The turn rule, the one place it is written: a turn starts at a prompt
// the human typed, a user message that is neither injected context nor
// only tool results. Injected context is a message with a "context" field
// (its kind: importers mark what the agent injected, and a harness can
// mark its own) or of role system or developer; it belongs to the turn it
// precedes. Events (EventRole) never start a turn. Every engine indexes
// messages with Classify and places turn starts with TurnStart.

// Kind is what the turn rule needs to know of a message.
type Kind struct {
	Prompt  bool // a prompt the human typed: it opens a turn
	Event   bool // role EventRole: kept, not part of the conversation
	Context bool // injected context: it joins the turn it precedes
	// Typed is an event of a kind, written through sessfs (not imported
	// from an agent's file): what tasks.json, memory.json, checkpoints
	// and the interruption rule read (events.go).
	Typed bool
}

// Classify validates a stored line as a message and says what it is, in
// one decode, with the message's own id ("" if it has none).
func Classify(line []byte) (k Kind, id string, err error) {
	h, err := parseHeader(line)
	if err != nil {
		return Kind{}, "", err
	}
	return kindOf(h), stringOf(h.ID), nil
}

// KindOf is Classify's Kind of a line a store holds or has just
// prepared (Prepare), without checking it again: the store checked it
// when it took it (Classify), and a reader that looks at every message,
// as the sizes of a transcript do, need not pay for that twice.
func KindOf(stored []byte) Kind {
	h, _ := headerOf(stored)
	return kindOf(h)
}

// IsPrompt reports whether a stored message opens a turn: the turn rule,
// for a reader outside the store.
func IsPrompt(line []byte) bool {
	k, _, err := Classify(line)
	return err == nil && k.Prompt
}

// KindOfParts is KindOf of a message of this role and content, with a
// "context" member or not, that is not an event: for a writer that knows
// them, as an importer does of each message it builds, without reading it
// back.
func KindOfParts(role string, content []byte, context bool) Kind {
	h := header{Role: role, Content: content}
	if context {
		h.Context = []byte(`""`) // kindOf asks only whether there is one
	}
	return kindOf(h)
}

func kindOf(h header) Kind {
	context := h.Context != nil || h.Role == "system" || h.Role == "developer"
	return Kind{
		Prompt:  h.Role == "user" && !context && !onlyToolResults(h.Content),
		Event:   h.Role == EventRole,
		Context: context,
		Typed:   h.Role == EventRole && FirstByte(h.Event) == '"' && !h.Imported,
	}
}

// TurnStart is where the turn opened by the prompt at i begins: at the
// injected context right before it (instructions, environment, hook
// output: what the agent sent along with the prompt), events in between
// or not. An event never starts a turn, so the heading a rendering puts at
// a turn's start is never on a line that renders as nothing. kind(j) is
// the kind of message j < i.
func TurnStart(i int, kind func(j int) Kind) int {
	start := i
	for j := i - 1; j >= 0; j-- {
		k := kind(j)
		if !k.Context && !k.Event {
			break
		}
		if k.Context {
			start = j
		}
	}
	return start
}

// The interruption rule, the one place it is written: a turn is
// interrupted when
//
//   - the harness says so: a turn_end with "interrupted": true, or a
//     run_errored (events.go), in the turn;
//   - the agent's own file says so, in an imported session: Codex's
//     turn_aborted event in the turn, or a note that the user interrupted
//     the agent (Claude Code's "[Request interrupted by user…]", Codex's
//     <turn_aborted>: injected context of kind "interruption") right after
//     the turn's last message;
//   - or it was cut off: it has no turn_end, a later turn began, and an
//     earlier turn of the branch had a turn_end. A branch that never
//     writes turn_end (an imported session, most harnesses) has no turn
//     cut off, and a turn_end written for the first time in a later turn
//     does not mark the turns before it.
//
// The last of a turn's outcome lines decides: a turn_end without
// "interrupted" or a run_completed after a run_errored says the turn went
// on and finished. Endings applies the rule reading a branch in order,
// TurnEnding to one turn of a view.

// Ending is how a turn ended, as its branch records it.
type Ending struct {
	Ended       bool   `json:"ended"` // a turn_end closed it
	Interrupted bool   `json:"interrupted"`
	Reason      string `json:"reason,omitempty"` // why, when the branch says
	// CutOff: interrupted by the last rule, which no line of the turn
	// shows (a transcript marks it where the next turn begins).
	CutOff bool `json:"cut_off,omitempty"`
}

// Note is how a transcript marks turn k interrupted where no line of it
// does; "" when it need not.
func (e Ending) Note(k int) string {
	if !e.CutOff {
		return ""
	}
	return "turn " + strconv.Itoa(k) + " was interrupted: it has no turn_end"
}

// outcome is what one stored line says of its turn's end.
type outcome struct {
	ended       bool // a turn_end
	interrupted bool
	reason      string
	before      bool   // a note: it marks the turn of the message before it
	shown       string // what a transcript shows of it, an event it would leave out
}

// ContextInterruption is the context kind of an imported note that the
// user interrupted the agent (the importer marks its own so), which ends
// the turn before it interrupted.
const ContextInterruption = "interruption"

// outcomeOf reads a stored line as an outcome line; false for any other.
func outcomeOf(raw []byte) (outcome, bool) {
	f := Members(raw, "role", "event", "context", "data", "source", "source_seq")
	role, event, ctx := stringOf(f[0]), stringOf(f[1]), stringOf(f[2])
	data, source, typed := f[3], f[4], f[5] == nil // an agent's line is not a typed event
	switch {
	case role != EventRole:
		return outcome{interrupted: true, reason: "interrupted by the user", before: true}, ctx == ContextInterruption
	case !typed:
		if event != "event_msg/turn_aborted" {
			return outcome{}, false
		}
		payload := Members(source, "payload")[0]
		return outcome{interrupted: true, reason: eventString(payload, "reason"), shown: "turn aborted"}, true
	case event == EventTurnEnd:
		o := outcome{ended: true, reason: eventString(data, "reason")}
		o.interrupted = string(Members(data, "interrupted")[0]) == "true"
		if o.interrupted {
			o.shown = "turn interrupted"
		}
		return o, true
	case event == EventRunErrored:
		return outcome{interrupted: true, reason: eventString(data, "error"), shown: "run errored"}, true
	case event == EventRunCompleted:
		return outcome{}, true
	}
	return outcome{}, false
}

// InterruptionNote is how a transcript shows a line that marks its turn
// interrupted and shows nothing else (an event): "turn interrupted: …",
// "run errored: …", "turn aborted: …"; "" for any other line.
func InterruptionNote(raw []byte) string {
	o, _ := outcomeOf(raw)
	if o.shown == "" || o.reason == "" {
		return o.shown
	}
	return o.shown + ": " + o.reason
}

// take applies an outcome line to the turn's ending so far.
func (e *Ending) take(o outcome) {
	e.Ended = e.Ended || o.ended
	e.Interrupted, e.Reason = o.interrupted, o.reason
	if !o.interrupted {
		e.Reason = ""
	}
}

// Endings applies the interruption rule to a branch's messages, given in
// order from its first (as View.Read returns them): how each turn ended.
// The zero value is ready to use.
type Endings struct {
	turn int // the turn being read: the last one given
	cur  Ending
	uses bool     // a turn before the current one had a turn_end
	base int      // the turn done[0] is, less one
	done []Ending // the turns a later turn followed
}

// Add reads the next message.
func (e *Endings) Add(m Message) {
	o, ok := outcomeOf(m.Raw)
	if ok && o.before {
		// The turn of the message before it, which it is still in if
		// it opens a turn (context joins the turn it precedes).
		e.cur.take(o)
		ok = false
	}
	for e.turn < m.Turn {
		e.finish()
	}
	if ok {
		e.cur.take(o)
	}
}

// finish closes the current turn: a later one began.
func (e *Endings) finish() {
	if e.turn > e.base {
		c := e.cur
		if !c.Ended && !c.Interrupted && e.uses {
			c.Interrupted, c.CutOff = true, true
		}
		e.uses = e.uses || c.Ended
		e.done = append(e.done, c)
	}
	e.turn++
	e.cur = Ending{}
}

// Turn is how turn k ended, as far as the messages given say: a turn a
// later one followed is final; the last one given has only what its own
// lines say (it is never cut off). False for a turn not given yet.
func (e *Endings) Turn(k int) (Ending, bool) {
	switch {
	case k > e.base && k <= e.base+len(e.done):
		return e.done[k-e.base-1], true
	case k == e.turn && k > e.base:
		return e.cur, true
	}
	return Ending{}, false
}

// TurnEnding is how turn k of v ended: it reads the turn, the message
// after it and, when the turn has no turn_end, the typed events before it
// up to the branch's first turn_end: the turn's size, not the branch's.
// A reader asking of many turns keeps a TurnEnds instead.
func TurnEnding(v View, k int) (Ending, error) {
	var t TurnEnds
	return t.Ending(v, k)
}

// TurnEnds answers TurnEnding for the turns of one branch, remembering
// what it read of the typed events before them, which a branch that
// grows never changes: where its first turn_end is, or that none is among
// the first ones. Asked of every turn of a branch, it reads each typed
// event at most once, where TurnEnding alone reads them all again for
// each turn of a branch with none. The zero value is ready; it is not
// safe for concurrent use.
type TurnEnds struct {
	read  int // the typed events read, none a turn_end
	first int // 1 + the position of the first turn_end; 0 until found
}

// Ending is how turn k of v ended (TurnEnding).
func (t *TurnEnds) Ending(v View, k int) (Ending, error) {
	from, to, err := v.TurnRange(k)
	if err != nil {
		return Ending{}, err
	}
	e := Endings{turn: k - 1, base: k - 1}
	next := to
	if k < v.Turns() {
		next++ // the next turn's first message: a note marks this turn
	}
	for i := from; i < next; i += readBatch {
		msgs, err := v.Read(i, min(i+readBatch, next))
		if err != nil {
			return Ending{}, err
		}
		for _, m := range msgs {
			if m.Turn > k { // a later turn began: first, the rule's premise
				if e.uses, err = t.Before(v, from); err != nil {
					return Ending{}, err
				}
			}
			e.Add(m)
		}
	}
	end, _ := e.Turn(k)
	return end, nil
}

// Before reports whether a typed event before message i of v is a
// turn_end.
func (t *TurnEnds) Before(v View, i int) (bool, error) {
	if t.first > 0 {
		return t.first-1 < i, nil
	}
	for n := v.TypedBefore(i); t.read < n; t.read++ {
		at := v.TypedAt(t.read)
		msgs, err := v.Read(at, at+1)
		if err != nil {
			return false, err
		}
		if o, ok := outcomeOf(msgs[0].Raw); ok && o.ended {
			t.first = at + 1
			return true, nil
		}
	}
	return false, nil
}
