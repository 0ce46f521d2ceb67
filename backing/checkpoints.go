package backing

import (
	"encoding/json"
	"fmt"
	"time"
)

// Checkpoints are named marks in a branch, the one place their rule is
// written (sessfs checkpoint, checkpoints/ in the mount, sessfs replay
// --checkpoint). A checkpoint is a typed event appended where it marks:
//
//	{"role":"event","content":"","event":"checkpoint","data":{"name":"…"}}
//
// so making one is an append (through `append` too), a fork has the
// checkpoints before its fork point, and finding them reads the branch's
// typed events (View.Typed), never its messages. A name is a branch name
// (ValidName: one path element ls shows). A name marked again moves: the
// later line stands, the earlier stays in the history. A checkpoint line
// whose name breaks the rule marks nothing.
const EventCheckpoint = "checkpoint"

// Checkpoint is where a checkpoint stands in a view; as JSON, what
// checkpoints/<name> in the mount and `sessfs checkpoint --json` show.
type Checkpoint struct {
	Name string `json:"name"`
	// Index is the event's position in the branch, events counted (its
	// line in messages.jsonl, 0-based): a replay from it starts with the
	// message after the mark.
	Index int `json:"message"`
	// Visible is how many visible messages come before it: the count
	// `sessfs fork --at-message` takes.
	Visible int `json:"visible"`
	// Turn is the turn it was made in (1-based; 0 in a branch with no
	// turn yet).
	Turn int       `json:"turn"`
	ID   string    `json:"id,omitempty"`
	Time time.Time `json:"ts,omitzero"` // its "ts"; the zero time if it has none that parses
}

// CheckpointEvent is the event line that marks checkpoint name.
func CheckpointEvent(name string) ([]byte, error) {
	if err := ValidName(name); err != nil {
		return nil, err
	}
	n, _ := json.Marshal(name) // a valid name: cannot fail
	return eventLine(EventCheckpoint, fmt.Appendf(nil, `{"name":%s}`, n)), nil
}

// MarkCheckpoint marks the head of the branch v shows as checkpoint
// name, in session s, and says whether it stored a line: marking the head
// again where the name stands already (a retry, a second touch) stores
// nothing.
func MarkCheckpoint(s Session, v View, name string) (bool, error) {
	line, err := CheckpointEvent(name)
	if err != nil {
		return false, err
	}
	if c, err := FindCheckpoint(v, name); err == nil && c.Index == v.Len()-1 {
		return false, nil
	}
	return true, s.AppendID(v.Branch().ID, [][]byte{line})
}

// Checkpoints lists the checkpoints of the branch v shows, in the order
// they stand, each at its latest mark.
func Checkpoints(v View) ([]Checkpoint, error) {
	var all []Checkpoint
	last := map[string]int{} // name → its latest mark in all
	for _, i := range v.Typed() {
		msgs, err := v.Read(i, i+1)
		if err != nil {
			return nil, err
		}
		c, ok := checkpointOf(msgs[0].Raw)
		if !ok {
			continue
		}
		c.Index, c.Visible = i, v.VisibleBefore(i)
		if v.Turns() > 0 {
			c.Turn = v.TurnOf(i)
		}
		last[c.Name] = len(all)
		all = append(all, c)
	}
	var out []Checkpoint
	for k, c := range all {
		if last[c.Name] == k {
			out = append(out, c)
		}
	}
	return out, nil
}

// FindCheckpoint is checkpoint name of the branch v shows; ErrNotFound
// when the branch has none of that name.
func FindCheckpoint(v View, name string) (Checkpoint, error) {
	cs, err := Checkpoints(v)
	if err != nil {
		return Checkpoint{}, err
	}
	for _, c := range cs {
		if c.Name == name {
			return c, nil
		}
	}
	return Checkpoint{}, fmt.Errorf("checkpoint %q: %w (branch %q has %s)", name, ErrNotFound, v.Branch().Name, Plural(len(cs), "checkpoint"))
}

// checkpointOf reads a stored line as a checkpoint: a typed event of kind
// EventCheckpoint whose data names a valid name. Keys are exact and the
// last of duplicates wins, as the store reads every line.
func checkpointOf(raw []byte) (Checkpoint, bool) {
	var c Checkpoint
	f := Members(raw, "event", "data", "id")
	if stringOf(f[0]) != EventCheckpoint {
		return c, false
	}
	c.ID, c.Name = stringOf(f[2]), stringOf(Members(f[1], "name")[0])
	if ValidName(c.Name) != nil {
		return c, false
	}
	c.Time, _ = MessageTime(raw)
	return c, true
}
