package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/sessfs/sessfs/backing"
)

// EventRole is the role of a stored source line that is not a message
// (a summary, a snapshot, a UI event): kept so that nothing is lost and
// the file can be written again, and left out of the transcripts.
const EventRole = backing.EventRole

// StoreLines returns every line of the source as a store message, in file
// order: each message as decoded, each event as a message of role
// EventRole with empty content, its kind in "event". Every one carries
// "source_seq", its 1-based line number in the file: it orders lines for
// an export of the original and tells a re-import where the stored part
// of a grown source ends.
func (s *Session) StoreLines() ([][]byte, error) {
	out := make([][]byte, 0, len(s.Messages)+len(s.Events))
	err := s.eachStoreLine(func(_ int, stored []byte) error {
		out = append(out, stored)
		return nil
	})
	return out, err
}

// eachStoreLine is StoreLines one line at a time: fn gets each line's
// store message and its line number, in file order.
func (s *Session) eachStoreLine(fn func(seq int, stored []byte) error) error {
	mi, ei := 0, 0
	for mi < len(s.Messages) || ei < len(s.Events) {
		if ei < len(s.Events) && (mi == len(s.Messages) || s.EventLine[ei] < s.MessageLine[mi]) {
			raw, err := eventMessage(s.Events[ei], s.EventLine[ei])
			if err != nil {
				return err
			}
			if err := fn(s.EventLine[ei], raw); err != nil {
				return err
			}
			ei++
			continue
		}
		n := s.MessageLine[mi]
		if err := fn(n, withField(s.Messages[mi], "source_seq", strconv.Itoa(n))); err != nil {
			return err
		}
		mi++
	}
	return nil
}

// eventMessage is the store message of event line ev, line n of its file.
func eventMessage(ev []byte, n int) ([]byte, error) {
	msg := message{role: json.RawMessage(`"` + EventRole + `"`), content: json.RawMessage(`""`), ofLine: true}
	if f := fields(ev); f != nil {
		msg.ts = stringOrNil(f["timestamp"]) // Claude Code and Codex date every line
		if msg.ts == nil {
			msg.ts = stringOrNil(f["startTime"]) // Gemini CLI's metadata line
		}
	}
	raw, err := msg.build(ev)
	if err != nil {
		return nil, fmt.Errorf("line %d: %w", n, err)
	}
	kind, _ := json.Marshal(eventKind(ev))
	return withField(raw, "event", kind, "source_seq", strconv.Itoa(n)), nil
}

// withField adds members to a JSON object written by build, before its
// closing brace; kv alternates keys and raw JSON values.
func withField(obj []byte, kv ...any) []byte {
	var b bytes.Buffer
	b.Write(obj[:len(obj)-1])
	for i := 0; i < len(kv); i += 2 {
		fmt.Fprintf(&b, ",%q:", kv[i])
		switch v := kv[i+1].(type) {
		case string:
			b.WriteString(v)
		case []byte:
			b.Write(v)
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

// eventKind names an event line for a reader: its "type", with the
// payload's type for Codex's wrapped lines (event_msg/token_count).
func eventKind(line []byte) string {
	if !validJSON(line) {
		return "document" // a part of a Gemini document: its fields, its end
	}
	m := fields(line)
	if m == nil {
		return "unknown"
	}
	k := str(m["type"])
	switch {
	case k == "" && m["$set"] != nil:
		k = "$set" // Gemini CLI's update of session fields
	case k == "" && m["sessionId"] != nil && m["projectHash"] != nil:
		k = "session" // Gemini CLI's metadata line
	}
	if p := fields(m["payload"]); p != nil {
		if t := str(p["type"]); t != "" {
			k += "/" + t
		}
	}
	if k == "" {
		return "unknown"
	}
	return k
}
