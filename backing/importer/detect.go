package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/sessfs/sessfs/backing"
)

// How much of a file Detect looks at. A first line can be large (a Codex
// session_meta carries the whole system prompt, a Claude Code user line
// may carry a pasted image), so the byte budget is generous; the line
// budget lets a few lines Detect does not recognise come first.
const (
	detectMaxBytes = 16 << 20
	detectMaxLines = 16
)

// Line types that mark each format. Codex wraps every line as
// {"timestamp","type","payload"}; Claude Code lines carry their type at
// the top level next to the session's fields and have no payload.
var (
	codexTypes = map[string]bool{
		"session_meta": true, "response_item": true, "event_msg": true,
		"turn_context": true, "compacted": true,
	}
	claudeTypes = map[string]bool{
		"user": true, "assistant": true, "system": true, "summary": true,
		"queue-operation": true, "file-history-snapshot": true, "file-history-delta": true,
		"custom-title": true, "ai-title": true, "agent-name": true,
		"last-prompt": true, "progress": true,
	}
)

var errStop = errors.New("stop")

// Noun is what a person calls a file of format f, for messages.
func (f Format) Noun() string {
	switch f {
	case ClaudeCode:
		return "Claude Code session"
	case Codex:
		return "Codex rollout"
	case Gemini:
		return "Gemini CLI session"
	}
	return string(f) + " file"
}

// DetectError is why Detect placed a file in no format it knows. It is
// ErrUnknownFormat (errors.Is), and Reason says what Detect saw, in words
// a message can quote.
type DetectError struct {
	Reason string // "line 3 is not JSON"
}

func (e *DetectError) Error() string { return ErrUnknownFormat.Error() + ": " + e.Reason }
func (e *DetectError) Unwrap() error { return ErrUnknownFormat }

// Detect reads the start of a file and says which format it is, by its
// content: the first line it recognises decides. Empty lines and JSON
// objects of no known shape are passed over; a line that is not JSON, or
// nothing recognised within the first lines, is ErrUnknownFormat (so is
// a first line longer than detectMaxBytes: it reads as cut-off JSON).
func Detect(r io.Reader) (Format, error) {
	var found Format
	var bad error
	seen := 0
	opened := false // the first line is "{": an indented document
	err := eachLine(io.LimitReader(r, detectMaxBytes), func(n int, line []byte) error {
		if !validJSON(line) {
			if seen == 0 && documentStart(line) {
				opened = true // see the next line
				return nil
			}
			if opened && geminiDocumentLine(line) {
				found = Gemini
				return errStop
			}
			bad = &DetectError{fmt.Sprintf("line %d is not JSON", n)}
			return errStop
		}
		if found = lineFormat(line); found != "" {
			return errStop
		}
		if seen++; seen == detectMaxLines {
			return errStop
		}
		return nil
	})
	switch {
	case found != "":
		return found, nil
	case bad != nil:
		return "", bad
	case err != nil && err != errStop:
		return "", err
	}
	switch {
	case seen == 0:
		return "", &DetectError{"it is empty"}
	case seen < detectMaxLines:
		return "", &DetectError{"no line of it is of a known format"}
	}
	return "", &DetectError{fmt.Sprintf("none of its first %d lines is of a known format", seen)}
}

// lineFormat says which format a JSON line belongs to, or "".
func lineFormat(line []byte) Format {
	m := fields(line)
	if m == nil {
		return ""
	}
	t := str(m["type"])
	if geminiLine(m) {
		return Gemini
	}
	if backing.FirstByte(m["payload"]) == '{' && codexTypes[t] {
		return Codex
	}
	if m["payload"] == nil && claudeTypes[t] {
		return ClaudeCode
	}
	return ""
}

// geminiLine says whether a JSON line is one only Gemini CLI writes: its
// session metadata (sessionId and projectHash, no type), a {"$set":…}, a
// "gemini" message, or a whole session document on one line. Its user
// lines look like Claude Code's, so they do not decide.
func geminiLine(m map[string]json.RawMessage) bool {
	switch {
	case m["type"] == nil && m["sessionId"] != nil && m["projectHash"] != nil:
		return true
	case len(m) == 1 && backing.FirstByte(m["$set"]) == '{':
		return true
	case str(m["type"]) == "gemini" && m["id"] != nil && m["payload"] == nil:
		return true
	}
	return false
}

// documentStart is the first line of an indented JSON document: "{".
func documentStart(line []byte) bool {
	return string(bytes.TrimSpace(line)) == "{"
}

// geminiDocumentLine is the second line of a Gemini CLI session document,
// which JSON.stringify(…, null, 2) starts with the session's id.
func geminiDocumentLine(line []byte) bool {
	return bytes.HasPrefix(bytes.TrimSpace(line), []byte(`"sessionId":`))
}
