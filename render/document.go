package render

import (
	"bytes"
	"encoding/json"
)

// export.json is one JSON document holding a branch whole, framed like
// transcript.html so that it too can be served a byte range at a time:
//
//	file = JSONHead(parts) + JSONMember(m0, true) + … + JSONMember(mn-1, false) + JSONTail()
//
// which reads {"meta":{…},"tasks":{…},"memory":{…},"branches":[…],
// "branch":"<id>","messages":[{…},{…}]}.

// JSONParts are what export.json holds before the messages.
type JSONParts struct {
	Meta          []byte // meta.json
	Tasks, Memory []byte // the branch's tasks.json and memory.json
	Branches      []byte // a JSON array of the session's branches
	Branch        string // the id of the branch whose messages follow
}

// JSONHead opens the document. A value that is not valid JSON is written
// as null rather than break the document.
func JSONHead(p JSONParts) []byte {
	id, _ := json.Marshal(p.Branch)
	var b bytes.Buffer
	b.WriteString(`{"meta":`)
	writeCompact(&b, p.Meta)
	b.WriteString(`,"tasks":`)
	writeCompact(&b, p.Tasks)
	b.WriteString(`,"memory":`)
	writeCompact(&b, p.Memory)
	b.WriteString(`,"branches":`)
	writeCompact(&b, p.Branches)
	b.WriteString(`,"branch":`)
	b.Write(id)
	b.WriteString(`,"messages":[`)
	return b.Bytes()
}

func writeCompact(b *bytes.Buffer, v []byte) {
	n := b.Len()
	if json.Compact(b, v) != nil || b.Len() == n {
		b.Truncate(n)
		b.WriteString("null")
	}
}

// JSONMember is one message of the "messages" array, a line of its own.
// The comma goes before every message but the first, so a member never
// changes once written and the document only grows before its tail.
func JSONMember(m Message, first bool) []byte {
	return AppendJSONMember(make([]byte, 0, len(",\n")+len(m.Raw)), m, first)
}

// AppendJSONMember appends JSONMember(m, first) to dst and returns the
// extended slice, as the append built-in does.
func AppendJSONMember(dst []byte, m Message, first bool) []byte {
	if first {
		dst = append(dst, '\n')
	} else {
		dst = append(dst, ",\n"...)
	}
	raw := bytes.TrimSpace(m.Raw)
	if !validJSON(raw) {
		// A damaged stored line must not break the document: it goes in
		// as a string, as transcript.md shows it as text.
		raw, _ = json.Marshal(string(bytes.ToValidUTF8(raw, []byte("\uFFFD"))))
	}
	return append(dst, raw...)
}

// JSONTail closes what JSONHead opened.
func JSONTail() []byte { return []byte("\n]}\n") }
