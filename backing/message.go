package backing

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Message is one stored message as read back from a branch.
type Message struct {
	Index     int    // 0-based position in the branch, ancestry resolved
	Turn      int    // 1-based turn the message belongs to
	TurnStart bool   // the message starts turn Turn
	Event     bool   // the message is an event (role EventRole), as the view's marks say
	Raw       []byte // the stored JSON object, one line, no newline
}

// EventRole is the role of a stored line that is not conversation: what
// an importer keeps of a source so that nothing is lost (a summary, a UI
// event). Events never start a turn, listings do not count them, and the
// renderings leave them out.
const EventRole = "event"

// header is the part of a message the store looks at. Keys are matched
// exactly (see EachMember); the last of duplicate keys wins, as it does
// for encoding/json and the renderers.
type header struct {
	Role    string
	Content json.RawMessage
	ID      json.RawMessage
	TS      json.RawMessage
	Context json.RawMessage // the kind of injected context, if it is some
	// Event is an event line's kind; Imported says the line came from an
	// agent's file (an importer numbers them: "source_seq").
	Event    json.RawMessage
	Imported bool
	// compact says the message (less whitespace around it) is compact
	// JSON already: Prepare stores it as it is.
	compact bool
}

// ValidateMessage checks that raw is one message: a JSON object with a
// string "role" and a "content" that is a string or an array, in valid
// UTF-8; "id", "ts" and "context", when present, are strings. Keys are
// case-sensitive. Every other field is allowed and kept.
func ValidateMessage(raw []byte) error {
	_, err := parseHeader(raw)
	return err
}

func parseHeader(raw []byte) (header, error) {
	var h header
	// JSON's own whitespace only: TrimSpace would also take a \v or a
	// U+0085 that no JSON reader (Prepare's Compact among them) accepts.
	raw = bytes.Trim(raw, " \t\r\n")
	if len(raw) == 0 || raw[0] != '{' {
		return h, fmt.Errorf("%w: a message must be a JSON object", ErrInvalid)
	}
	if !utf8.Valid(raw) {
		return h, fmt.Errorf("%w: not valid UTF-8", ErrInvalid)
	}
	valid, compact := ScanJSON(raw)
	if !valid {
		// Unmarshal's error says where the syntax breaks.
		var v any
		err := json.Unmarshal(raw, &v)
		return h, fmt.Errorf("%w: not valid JSON: %v", ErrInvalid, err)
	}
	h, role := headerOf(raw)
	h.compact = compact
	return h, checkHeader(h, role)
}

// checkHeader checks what ValidateMessage asks of the members of header
// h; role is the raw value of "role".
func checkHeader(h header, role []byte) error {
	switch FirstByte(role) {
	case '"':
	case 0:
		return fmt.Errorf("%w: missing \"role\" (keys are case-sensitive)", ErrInvalid)
	default:
		return fmt.Errorf("%w: \"role\" must be a string", ErrInvalid)
	}
	if h.Role == "" {
		return fmt.Errorf("%w: empty \"role\"", ErrInvalid)
	}
	switch FirstByte(h.Content) {
	case '"', '[':
	case 0:
		return fmt.Errorf("%w: missing \"content\" (keys are case-sensitive)", ErrInvalid)
	default:
		return fmt.Errorf("%w: \"content\" must be a string or an array", ErrInvalid)
	}
	for _, f := range []struct {
		name string
		v    json.RawMessage
	}{{"id", h.ID}, {"ts", h.TS}, {"context", h.Context}} {
		if f.v != nil && FirstByte(f.v) != '"' {
			return fmt.Errorf("%w: %q must be a string", ErrInvalid, f.name)
		}
	}
	return nil
}

// CheckBuilt is ValidateMessage of msg, a JSON object its writer built
// of values of valid JSON, whose "role", "content", "id", "ts" and
// "context" are these (nil: absent): it checks the encoding and these
// members, not the syntax. An importer builds every message of an agent's
// line it has checked; scanning the message again, and walking it for
// these members, took as long as reading the line.
func CheckBuilt(msg, role, content, id, ts, context []byte) error {
	if !utf8.Valid(msg) {
		return fmt.Errorf("%w: not valid UTF-8", ErrInvalid)
	}
	h := header{Role: stringOf(role), Content: content, ID: id, TS: ts, Context: context}
	return checkHeader(h, role)
}

// headerOf reads the header of raw, valid JSON, without checking it
// (parseHeader does), and the raw value of its "role" (h.Role is its
// value when it is a string).
func headerOf(raw []byte) (h header, role []byte) {
	EachMember(raw, func(key string, v []byte) {
		switch key {
		case "role":
			role = v
		case "content":
			h.Content = v
		case "id":
			h.ID = v
		case "ts":
			h.TS = v
		case "context":
			h.Context = v
		case "event":
			h.Event = v
		case "source_seq":
			h.Imported = true
		}
	})
	h.Role = stringOf(role)
	return h, role
}

// FirstByte is the first byte of a JSON value ('"', '[', '{', 'n', a digit,
// …), or 0 for an empty one: how a string is told from an array or null
// before decoding (json.Unmarshal of null into a string succeeds).
func FirstByte(b []byte) byte {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

// Prepare validates raw (a typed event's data too, by CheckEvent) and
// returns the line to store: compact JSON with
// "id" and "ts" added in front when absent, every other byte of every field
// kept as given. It also returns the message's id, and whether the writer
// gave it: only such an id can come again, in a retry.
func Prepare(raw []byte, now time.Time, max int64) (line []byte, id string, given bool, err error) {
	if int64(len(raw)) > max {
		return nil, "", false, fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, len(raw), max)
	}
	h, err := parseHeader(raw)
	if err != nil {
		return nil, "", false, err
	}
	if err := checkTyped(h, raw); err != nil {
		return nil, "", false, err
	}
	if h.compact {
		// What Compact would give, without its second pass: the agents
		// and the importer write compact lines.
		line = bytes.Clone(bytes.Trim(raw, " \t\r\n"))
	} else {
		var b bytes.Buffer
		b.Grow(len(raw) + 80)
		if err := json.Compact(&b, raw); err != nil {
			return nil, "", false, fmt.Errorf("%w: %v", ErrInvalid, err)
		}
		line = b.Bytes()
	}
	var add []byte
	if h.ID == nil {
		u, err := uuid.NewV7()
		if err != nil {
			return nil, "", false, err
		}
		id = u.String()
		add = append(add, `"id":"`...)
		add = append(add, id...)
		add = append(add, `",`...)
	} else {
		id = stringOf(h.ID)
		given = id != "" // an empty id names nothing a retry could match
	}
	if h.TS == nil {
		add = append(add, `"ts":`...)
		add = strconv.AppendQuote(add, now.UTC().Format(time.RFC3339Nano))
		add = append(add, ',')
	}
	if len(add) > 0 {
		if bytes.Equal(line, []byte("{}")) { // unreachable: role is required
			return nil, "", false, fmt.Errorf("%w: empty object", ErrInvalid)
		}
		out := make([]byte, 0, len(line)+len(add))
		out = append(out, '{')
		out = append(out, add...)
		out = append(out, line[1:]...)
		line = out
	}
	if int64(len(line)) > max {
		return nil, "", false, fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, len(line), max)
	}
	return line, id, given, nil
}

// stringOf decodes a JSON string value (valid JSON, as parseHeader leaves
// it); anything else decodes to "".
func stringOf(v json.RawMessage) string {
	if FirstByte(v) != '"' {
		return ""
	}
	v = bytes.TrimSpace(v)
	if bytes.IndexByte(v, '\\') < 0 {
		return string(v[1 : len(v)-1])
	}
	var s string
	json.Unmarshal(v, &s)
	return s
}

// IDOf is a stored message's own id ("" if it has none).
func IDOf(line []byte) string {
	var id string
	EachMember(line, func(key string, v []byte) {
		if key == "id" {
			id = stringOf(v)
		}
	})
	return id
}

// MessageTime is a stored message's "ts" (RFC 3339), and whether it has
// one that parses. Keys are exact and the last of duplicates wins, as the
// store reads them.
func MessageTime(line []byte) (time.Time, bool) {
	found := false
	var ts string
	EachMember(line, func(key string, v []byte) {
		if key == "ts" {
			ts, found = stringOf(v), FirstByte(v) == '"'
		}
	})
	if !found {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, ts)
	return t, err == nil
}

// TextMessage builds the message for a plain text: {"role":role,"content":text}.
func TextMessage(role, text string) ([]byte, error) {
	if !utf8.ValidString(text) {
		return nil, fmt.Errorf("%w: text is not valid UTF-8", ErrInvalid)
	}
	return json.Marshal(struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}{role, text})
}

// onlyToolResults reports whether a content is an array holding nothing but
// tool results. A user message like that does not start a turn: Claude Code
// stores tool results with role user.
func onlyToolResults(content json.RawMessage) bool {
	n, other := 0, false
	eachElement(content, func(block []byte) {
		n++
		var typ []byte
		if !EachMember(block, func(key string, v []byte) {
			if key == "type" {
				typ = v
			}
		}) {
			other = true
		}
		if t := string(typ); t != `"tool_result"` && t != `"function_call_output"` {
			other = true
		}
	})
	return n > 0 && !other
}
