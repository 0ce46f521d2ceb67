package backing

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Typed events a harness writes beside its messages, the one place their
// kinds and the fields of their data are written. Each is an event line,
// appended like any message (through `append`, or `sessfs event`):
//
//	{"role":"event","content":"","event":"<kind>","data":{…}}
//
// kept in the branch, listed in events.jsonl, never counted as a message
// nor rendered as conversation. An append refuses a line of one of these
// kinds whose data breaks its shape (Prepare calls CheckEvent); fields
// beyond those below are kept as given. An imported line (one with
// "source_seq") is the agent's, never checked. The checkpoint, tasks and
// memory events (checkpoints.go, documents.go) are typed events too, with
// rules of their own.
const (
	// usage: tokens spent, in sessfs's own terms (Usage): "input",
	// "output", "cache_read", "cache_write", "reasoning", each a count,
	// and "model", a string. usage.json and `sessfs usage` count it
	// (usage_shapes.go).
	EventUsage = "usage"
	// config_changed: "model" and "provider", strings, and "settings", an
	// object; at least one of them. Its model is the model in effect for
	// the usage after it that names none.
	EventConfigChanged = "config_changed"
	// run_completed: a run of the agent finished; data is an object,
	// empty or not.
	EventRunCompleted = "run_completed"
	// run_errored: a run failed; "error", a non-empty string, says how.
	// It marks its turn interrupted (turns.go).
	EventRunErrored = "run_errored"
	// turn_end: the turn is over; "interrupted": true says it was cut
	// short, and "reason", a string, why. A branch that writes turn_end
	// has its turns without one marked interrupted (turns.go).
	EventTurnEnd = "turn_end"
	// file_snapshot (EventFileSnapshot, snapshots.go): a file's state
	// before a turn edits it.
)

// eventField is one field a kind's data may have, and its JSON type:
// '"' a string, '{' an object, '0' a count (an integer >= 0), 'b' a
// boolean.
type eventField struct {
	name string
	typ  byte
}

// eventShapes are the fields each kind's data may have; required ones
// are checked in CheckEvent.
var eventShapes = map[string][]eventField{
	EventUsage: {{"input", '0'}, {"output", '0'}, {"cache_read", '0'}, {"cache_write", '0'},
		{"reasoning", '0'}, {"model", '"'}},
	EventConfigChanged: {{"model", '"'}, {"provider", '"'}, {"settings", '{'}},
	EventRunCompleted:  {},
	EventRunErrored:    {{"error", '"'}},
	EventTurnEnd:       {{"interrupted", 'b'}, {"reason", '"'}},
	EventFileSnapshot: {{"path", '"'}, {"turn", '0'}, {"exists", 'b'}, {"content", '"'},
		{"encoding", '"'}, {"size", '0'}, {"sha256", '"'}, {"mode", '0'}},
}

// CheckEvent checks the data of an event of kind: for one of the kinds above,
// an object whose fields have their types, with the ones a kind requires;
// for any other kind, anything (its own rules, if any, are elsewhere).
func CheckEvent(kind string, data []byte) error {
	shape, known := eventShapes[kind]
	if !known {
		return nil
	}
	if data == nil { // no "data": nothing said, as {}
		data = emptyDocument
	}
	if FirstByte(data) != '{' {
		return fmt.Errorf("%w: event %q: \"data\" must be a JSON object", ErrInvalid, kind)
	}
	var err error
	seen := map[string]bool{}
	EachMember(data, func(key string, v []byte) {
		for _, f := range shape {
			if f.name != key || err != nil {
				continue
			}
			seen[key] = true
			if !fieldIs(f.typ, v) {
				err = fmt.Errorf("%w: event %q: data.%s must be %s", ErrInvalid, kind, key, typeName(f.typ))
			}
		}
	})
	if err != nil {
		return err
	}
	switch kind {
	case EventConfigChanged:
		if !seen["model"] && !seen["provider"] && !seen["settings"] {
			return fmt.Errorf("%w: event %q: data names none of model, provider, settings", ErrInvalid, kind)
		}
	case EventRunErrored:
		if !seen["error"] || eventString(data, "error") == "" {
			return fmt.Errorf("%w: event %q: data.error must say what went wrong", ErrInvalid, kind)
		}
	case EventFileSnapshot:
		return checkSnapshot(data)
	}
	return nil
}

func fieldIs(typ byte, v []byte) bool {
	v = bytes.TrimSpace(v)
	switch typ {
	case '0': // 12, or 12.0 as an encoder writes a float
		if c := FirstByte(v); c < '0' || c > '9' {
			return false
		}
		f, err := strconv.ParseFloat(string(v), 64)
		return err == nil && f == math.Trunc(f)
	case 'b':
		return string(v) == "true" || string(v) == "false"
	}
	return FirstByte(v) == typ
}

func typeName(typ byte) string {
	switch typ {
	case '0':
		return "a whole number >= 0"
	case 'b':
		return "true or false"
	case '{':
		return "an object"
	}
	return "a string"
}

// Event builds the event line of kind with data (nil: {}), which
// CheckEvent accepts; kind is one of the kinds above or any other name a
// harness keeps, the "data" kept compact as every stored line is.
func Event(kind string, data []byte) ([]byte, error) {
	if kind == "" || !utf8.ValidString(kind) || strings.TrimSpace(kind) != kind {
		return nil, fmt.Errorf("%w: event kind %q: must be a name", ErrInvalid, kind)
	}
	if data == nil {
		data = emptyDocument
	}
	if !json.Valid(data) {
		var v any
		return nil, fmt.Errorf("%w: event data is not valid JSON: %v", ErrInvalid, json.Unmarshal(data, &v))
	}
	if err := CheckEvent(kind, data); err != nil {
		return nil, err
	}
	return eventLine(kind, data), nil
}

// eventLine is the event line of kind with data, valid JSON, kept compact
// as every stored line is: the one place the line is written, for every
// typed event (Event, CheckpointEvent, DocumentEvent, CompactionLines).
func eventLine(kind string, data []byte) []byte {
	var b bytes.Buffer
	json.Compact(&b, data) // valid JSON: cannot fail
	k, _ := json.Marshal(kind)
	return fmt.Appendf(nil, `{"role":%q,"content":"","event":%s,"data":%s}`, EventRole, k, b.Bytes())
}

// checkTyped is Prepare's check of a typed event line (Kind.Typed): its
// data, by CheckEvent.
func checkTyped(h header, raw []byte) error {
	if !kindOf(h).Typed {
		return nil
	}
	return CheckEvent(stringOf(h.Event), Members(raw, "data")[0])
}

// eventString is data's string field key ("" if it has none).
func eventString(data []byte, key string) string {
	return stringOf(Members(data, key)[0])
}
