package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Gemini CLI before the JSONL files wrote a session as one JSON document,
// rewritten whole at each update (~/.gemini/tmp/<project>/chats/
// session-*.json): {"sessionId","projectHash","startTime","lastUpdated",
// "messages":[{id, timestamp, type, content, toolCalls, thoughts, tokens,
// model}, …], …}, indented over many lines.
//
// To keep the import lossless and the file's bytes recoverable, the
// document is cut, at line ends, into parts: the lines up to the first
// message (the session's fields), then each message with the lines it
// ends on, then the rest (the closing brackets, fields after the
// messages). A message's part becomes that message, decoded as a line of
// the JSONL format is, with the part's bytes under "source_line" (its
// "source" is the message object, which a part is not); the other parts
// are events with only "source_line". Each part's number is the line it
// starts on, so Original puts the document back together line for line.
//
// A document that is one line holds all its messages in one part, which
// becomes one event: Gemini CLI indents its documents, so only a
// hand-made file is like that.

// geminiDocument says whether data is a whole-document Gemini session: a
// JSON object with a "messages" array. A JSONL file is never one JSON
// value, unless it is one line; that line, a metadata or $set line, has
// no "messages" member.
func geminiDocument(data []byte) bool {
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' || !validJSON(data) {
		return false
	}
	var doc struct {
		Messages json.RawMessage `json:"messages"`
	}
	return json.Unmarshal(data, &doc) == nil && bytes.HasPrefix(bytes.TrimSpace(doc.Messages), []byte("["))
}

// decodeGeminiDocument decodes a whole-document session.
func decodeGeminiDocument(data []byte) (*Session, error) {
	spans, err := messageSpans(data)
	if err != nil {
		return nil, err
	}
	d := newGeminiDecoder()
	var meta map[string]json.RawMessage
	json.Unmarshal(data, &meta)
	d.metadata(meta)
	d.s.Created = parseTime(meta["startTime"])

	// Cut after the line each message ends on, and before the line the
	// first one starts on.
	var cuts []int // offsets of the '\n' that end parts
	if len(spans) > 0 {
		if i := bytes.LastIndexByte(data[:spans[0][0]], '\n'); i >= 0 {
			cuts = append(cuts, i)
		}
	}
	ends := map[int]int{}  // cut → how many messages end in its part
	endOf := map[int]int{} // cut → the last message ending in its part
	for i, sp := range spans {
		c := bytes.IndexByte(data[sp[1]:], '\n')
		if c < 0 {
			c = len(data)
		} else {
			c += sp[1]
		}
		if len(cuts) == 0 || cuts[len(cuts)-1] != c {
			cuts = append(cuts, c)
		}
		ends[c]++
		endOf[c] = i
	}
	if last := len(data); len(cuts) == 0 || cuts[len(cuts)-1] < last {
		cuts = append(cuts, last)
	}

	start, lineNo := 0, 1
	for _, c := range cuts {
		if c < start {
			continue
		}
		part := data[start:c]
		if len(bytes.TrimSpace(part)) > 0 { // eachLine skips blank lines too
			before := len(d.s.Events)
			if ends[c] == 1 {
				sp := spans[endOf[c]]
				if err := d.documentMessage(data[sp[0]:sp[1]], part); err != nil {
					return nil, &LineError{lineNo, err}
				}
			} else if err := d.s.addEvent(part); err != nil {
				return nil, &LineError{lineNo, err}
			}
			if len(d.s.Events) > before {
				d.s.EventLine = append(d.s.EventLine, lineNo)
			} else {
				d.s.MessageLine = append(d.s.MessageLine, lineNo)
			}
		}
		lineNo += bytes.Count(part, []byte("\n")) + 1
		start = c + 1
	}
	s := d.finish()
	s.Format = Gemini
	return s, nil
}

// documentMessage adds the message of one part: obj is the message's
// JSON object, part the lines that hold it.
func (d *geminiDecoder) documentMessage(obj, part []byte) error {
	msg, ok, err := d.record(obj, part)
	if err != nil || !ok {
		if aerr := d.s.addEvent(part); err == nil {
			err = aerr
		}
		return err
	}
	d.s.Messages = append(d.s.Messages, msg)
	return nil
}

// messageSpans is the byte offsets [start, end) of each element of the
// document's top-level "messages" array.
func messageSpans(data []byte) ([][2]int, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var spans [][2]int
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		if key, _ := t.(string); key != "messages" || spans != nil {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, err
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			return nil, fmt.Errorf("messages is not an array")
		}
		spans = [][2]int{}
		for dec.More() {
			var el json.RawMessage
			if err := dec.Decode(&el); err != nil {
				return nil, err
			}
			end := int(dec.InputOffset())
			spans = append(spans, [2]int{end - len(el), end})
		}
		if _, err := dec.Token(); err != nil { // ]
			return nil, err
		}
	}
	return spans, nil
}
