package importer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
	"unicode/utf8"

	"github.com/sessfs/sessfs/backing"
)

// Format names a source format.
type Format string

// The formats Decode reads.
const (
	ClaudeCode Format = "claude-code"
	Codex      Format = "codex"
	// Gemini is Gemini CLI's sessions: the JSONL files (gemini.go) and
	// the whole JSON documents of earlier versions (gemini_json.go).
	Gemini Format = "gemini"
)

// ErrUnknownFormat is returned when a file is not in a format this
// package reads.
var ErrUnknownFormat = errors.New("importer: unknown format")

// Session is one decoded source session. Every non-empty line of the
// source ends up in exactly one of Messages and Events, so nothing is lost.
type Session struct {
	Format   Format
	SourceID string // the agent's own session id
	Slug     string // the agent's own short name for it (Claude Code's "slug"), if any
	Title    string
	Cwd      string
	Model    string
	Provider string
	Created  time.Time // see the decoders for where it comes from
	Extra    map[string]json.RawMessage

	// Messages are store messages in file order: JSON objects with role,
	// content, ts (when the line has one), id (Claude Code's uuid) and
	// source, each of which passes backing.ValidateMessage.
	Messages [][]byte
	// Events are the lines that are not messages, unchanged (no newline).
	Events [][]byte
	// EventAt[i] is len(Messages) when Events[i] was read: its place among
	// the messages, so that an export can put the lines back in order.
	EventAt []int
	// MessageLine[i] and EventLine[i] are the 1-based line numbers of
	// Messages[i] and Events[i] in the file.
	MessageLine, EventLine []int

	// lineCompact says whether the line being decoded, valid JSON, is
	// compact too, as decodeLine found: build need not scan it again.
	lineCompact bool
}

// addEvent keeps line as an event, refused where the store would refuse
// it later (text that is not valid UTF-8): a message is checked as it is
// built, an event line here, so a file the store cannot take fails its
// decoding at the line that says why, whatever the line became.
func (s *Session) addEvent(line []byte) error {
	if !utf8.Valid(line) {
		return fmt.Errorf("%w: not valid UTF-8", backing.ErrInvalid)
	}
	s.Events = append(s.Events, line)
	s.EventAt = append(s.EventAt, len(s.Messages))
	return nil
}

func (s *Session) setExtra(key string, v json.RawMessage) {
	if v == nil {
		return
	}
	if s.Extra == nil {
		s.Extra = map[string]json.RawMessage{}
	}
	s.Extra[key] = v
}

// LineError reports a line Decode could not use. Line is 1-based and
// counts every line of the file, empty ones too.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// newDecoder is the line decoder of format f.
func newDecoder(f Format) (lineDecoder, error) {
	switch f {
	case ClaudeCode:
		return newClaudeDecoder(), nil
	case Codex:
		return newCodexDecoder(), nil
	case Gemini:
		return newGeminiDecoder(), nil
	}
	return nil, fmt.Errorf("%w: %q", ErrUnknownFormat, f)
}

// Decode reads a whole source file in format f.
func Decode(r io.Reader, f Format) (*Session, error) {
	d, err := newDecoder(f)
	if err != nil {
		return nil, err
	}
	if f == Gemini {
		// A whole document is read as one; a JSONL file line by line.
		data, err := io.ReadAll(r)
		if err != nil {
			return nil, err
		}
		if geminiDocument(data) {
			s, err := decodeGeminiDocument(data)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			return s, nil
		}
		r = bytes.NewReader(data)
	}
	err = eachLine(r, func(n int, line []byte) error { return decodeLine(d, n, line) })
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f, err)
	}
	s := d.finish()
	s.Format = f
	return s, nil
}

// decodeLine has d decode line n of a file, which becomes one message or
// one event of its session.
func decodeLine(d lineDecoder, n int, line []byte) error {
	valid, compact := backing.ScanJSON(line)
	if !valid {
		var v any
		return &LineError{n, fmt.Errorf("not valid JSON: %v", json.Unmarshal(line, &v))}
	}
	d.session().lineCompact = compact
	before := len(d.session().Events)
	if err := d.line(line); err != nil {
		return &LineError{n, err}
	}
	if s := d.session(); len(s.Events) > before {
		s.EventLine = append(s.EventLine, n)
	} else {
		s.MessageLine = append(s.MessageLine, n)
	}
	return nil
}

// DecodeFile detects the format of the file at path and decodes it.
func DecodeFile(path string) (*Session, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	f, err := Detect(fh)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if _, err := fh.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	s, err := Decode(fh, f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// lineDecoder is what one format supplies: it sees each non-empty line,
// which is valid JSON, then builds the session.
type lineDecoder interface {
	line(line []byte) error
	session() *Session // the session being built
	finish() *Session
}

// eachLine calls fn with every non-empty line and its 1-based number. The
// line excludes its '\n' and is a fresh slice fn may keep. A '\r' before
// the newline stays: it is a byte of the file, and JSON allows it.
func eachLine(r io.Reader, fn func(n int, line []byte) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if err != nil && err != io.EOF {
			return err
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		if len(bytes.TrimSpace(line)) > 0 {
			if ferr := fn(n, line); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

// message is the parts of a store message taken from a source line. Each
// field is a raw JSON value as the source spells it; id and ts may be nil.
type message struct {
	id, role, content, ts json.RawMessage
	// continues marks a line that goes on with the previous message: the
	// same API response, written one content block a line. Renderings
	// show the two as one message.
	continues bool
	// whole is the bytes the file holds for this message when line, its
	// JSON, is not all of them (a part of a Gemini document); kept in
	// "source_line".
	whole []byte
	// ofLine says that role, content, id and ts are values of valid
	// JSON, the line's or constants, as Claude Code's and Codex's are:
	// build need not scan the message it makes of them.
	ofLine bool
}

// build writes the store message for line. It is assembled by hand rather
// than with json.Marshal because Marshal would re-encode the source
// (escaping <, > and &), and the point of "source" is to keep the line's
// bytes. The store compacts messages, which would drop any whitespace
// between tokens of the line, so a line that is not already compact is
// also kept whole as the string "source_line" (see SourceLine).
func (m message) build(line []byte) ([]byte, error) {
	valid, compact := backing.ScanJSON(line)
	return m.buildScanned(line, valid, compact)
}

// buildScanned is build of a line known to be valid JSON or not, and
// compact or not (backing.ScanJSON).
func (m message) buildScanned(line []byte, valid, compact bool) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(len(m.content) + len(line) + 128)
	b.WriteByte('{')
	if m.id != nil {
		b.WriteString(`"id":`)
		b.Write(m.id)
		b.WriteByte(',')
	}
	b.WriteString(`"role":`)
	b.Write(m.role)
	b.WriteString(`,"content":`)
	b.Write(m.content)
	if m.ts != nil {
		b.WriteString(`,"ts":`)
		b.Write(m.ts)
	}
	if m.continues {
		b.WriteString(`,"continues":true`)
	}
	// A part of a document that is not JSON by itself (its first lines,
	// its closing brackets) is kept only as "source_line".
	whole := m.whole
	if whole == nil && !valid {
		whole, line = line, nil
	}
	if whole == nil && !compact {
		whole = line
	}
	// The line's copy of the content is cut out as it is written, as Slim
	// would cut it from the message (slim.go).
	hs, he, hole := 0, 0, ""
	if whole == nil {
		hs, he, hole = holeOf(line, m.content)
	}
	if line != nil {
		b.WriteString(`,"source":`)
		if hole != "" {
			b.Write(line[:hs])
			b.WriteString("null")
			b.Write(line[he:])
		} else {
			b.Write(line)
		}
	}
	if whole != nil {
		// Marshal would put U+FFFD for an invalid byte, silently: the
		// line could not be given back. (Kept as "source", it is refused
		// with the message, as the store checks it.)
		if !utf8.Valid(whole) {
			return nil, fmt.Errorf("%w: not valid UTF-8", backing.ErrInvalid)
		}
		quoted, err := json.Marshal(string(whole))
		if err != nil {
			return nil, err
		}
		b.WriteString(`,"source_line":`)
		b.Write(quoted)
	}
	out := b.Bytes()
	if hole != "" {
		out = appendHoleName(out, hole)
	} else {
		out = append(out, '}')
	}
	// Checked as the store will (Prepare), without a scan of its own when
	// every part is a value of a line checked already.
	if m.ofLine {
		if err := backing.CheckBuilt(out, m.role, m.content, m.id, m.ts, nil); err != nil {
			return nil, err
		}
	} else if err := backing.ValidateMessage(out); err != nil {
		return nil, err
	}
	return out, nil
}

// validJSON is json.Valid, in the one scan backing.ScanJSON makes.
func validJSON(b []byte) bool {
	valid, _ := backing.ScanJSON(b)
	return valid
}

// SourceLine gives back the exact source line a message was decoded from,
// from the message as built here or as the store keeps it (compacted).
func SourceLine(msg []byte) ([]byte, error) {
	if !validJSON(msg) {
		return nil, errors.New("importer: message is not JSON")
	}
	f := backing.Members(msg, "source", "source_line", "source_hole", "content")
	src, line, hole := f[0], f[1], f[2]
	if line != nil {
		var s string
		if err := json.Unmarshal(line, &s); err != nil {
			return nil, fmt.Errorf("importer: source_line: %w", err)
		}
		return []byte(s), nil
	}
	if src == nil {
		return nil, errors.New("importer: message has no source")
	}
	if hole != nil {
		var err error
		if src, err = fill(src, backing.StringOf(hole), f[3]); err != nil {
			return nil, err
		}
	}
	var b bytes.Buffer
	if err := json.Compact(&b, src); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// fields decodes a line as a JSON object, keeping each value raw. It
// returns nil for valid JSON that is not an object (a string, a number).
func fields(raw []byte) map[string]json.RawMessage {
	// One check and one scan: Unmarshal into a map checks the line, then
	// decodes it, every value copied; per line of a big import that was
	// the most of its time.
	if !validJSON(raw) {
		return nil
	}
	return members(raw)
}

// members is fields of raw known to be valid JSON: a line Decode
// checked, or a value of one. Checking it again, per line of a big
// import, cost as much as reading it.
func members(raw []byte) map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	if !backing.EachMember(raw, func(key string, val []byte) { m[key] = val }) {
		return nil
	}
	return m
}

// str is the value of a JSON string, or "" for anything else.
func str(raw json.RawMessage) string {
	s, _ := jsonString(raw)
	return s
}

// stringOrNil keeps raw if it is a JSON string: the store wants id and ts
// to be strings, and a line with anything else there just goes without.
func stringOrNil(raw json.RawMessage) json.RawMessage {
	if backing.FirstByte(raw) == '"' {
		return raw
	}
	return nil
}

// parseTime reads an RFC 3339 timestamp, the zero time otherwise.
func parseTime(raw json.RawMessage) time.Time {
	t, err := time.Parse(time.RFC3339Nano, str(raw))
	if err != nil {
		return time.Time{}
	}
	return t
}

// blockArray wraps one JSON value as a one-element array: the content of a
// message made of a single block.
func blockArray(v json.RawMessage) json.RawMessage {
	out := make([]byte, 0, len(v)+2)
	out = append(out, '[')
	out = append(out, v...)
	return append(out, ']')
}

// errFound stops PeekID's walk once the id is known.
var errFound = errors.New("found")

// PeekID reads only as far as a source says its own session id (the first
// lines, as a rule): enough to find the session an earlier import made of
// it without decoding the whole file. "" when the file never says.
func PeekID(r io.Reader, f Format) (string, error) {
	d, err := newDecoder(f)
	if err != nil {
		return "", err
	}
	if f == Gemini {
		data, err := io.ReadAll(r)
		if err != nil {
			return "", err
		}
		if geminiDocument(data) {
			var doc struct {
				SessionID string `json:"sessionId"`
			}
			json.Unmarshal(data, &doc)
			return doc.SessionID, nil
		}
		r = bytes.NewReader(data)
	}
	err = eachLine(r, func(n int, line []byte) error {
		if decodeLine(d, n, line) == nil && d.session().SourceID != "" {
			return errFound
		}
		return nil
	})
	if err != nil && !errors.Is(err, errFound) {
		return "", err
	}
	return d.session().SourceID, nil
}
