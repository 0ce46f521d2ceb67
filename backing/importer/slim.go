package importer

import (
	"bytes"
	"fmt"

	"github.com/sessfs/sessfs/backing"
)

// A message made from an agent's line keeps the line under "source", and
// its "content" is most often a value of that line as written (Claude
// Code's message.content, a Codex item): stored as it is, an imported
// session would take twice its source's bytes. Slim keeps that value
// once, in "content": the line's copy is replaced by null and
// "source_hole" names where it was; SourceLine puts it back, so the line
// comes back byte for byte. A value is cut only when it is the same bytes
// as the content, so nothing the content does not hold can be lost.

// hole is a place in an agent's line that can hold a message's content.
type hole struct {
	name string   // what "source_hole" says
	path []string // where the value is in the line
	// block: the value is the content's one element (a Codex item the
	// importer stores as a one-block message).
	block bool
}

// holes are tried in order; a name, once written to a store, keeps its
// meaning for good.
var holes = []hole{
	{"message.content", []string{"message", "content"}, false}, // Claude Code user and assistant
	{"content", []string{"content"}, false},                    // Claude Code system
	{"payload.content", []string{"payload", "content"}, false}, // Codex message items
	{"payload", []string{"payload"}, true},                     // Codex other items
}

// minHole is the smallest content worth a hole: "null" and the member
// naming the hole cost about 30 bytes.
const minHole = 64

// Slim returns msg, a valid compact stored message, with its content's
// copy cut out of "source" when the line holds one; msg itself when not
// (no source, kept whole as "source_line", already slim, or no value of
// the line is the content's bytes). It is how an import stores a line and
// how `sessfs migrate` rewrites a line stored before this format.
func Slim(msg []byte) []byte {
	f := backing.Members(msg, "content", "source", "source_hole", "source_line")
	content, src := f[0], f[1]
	if len(content) < minHole || backing.FirstByte(src) != '{' || f[2] != nil || f[3] != nil ||
		msg[len(msg)-1] != '}' {
		return msg
	}
	s, e, name := holeOf(src, content)
	if name == "" {
		return msg
	}
	at, _, _ := backing.MemberSpan(msg, "source")
	out := make([]byte, 0, len(msg)-(e-s)+len(name)+24)
	out = append(out, msg[:at+s]...)
	out = append(out, "null"...)
	out = append(out, msg[at+e:len(msg)-1]...)
	return appendHoleName(out, name)
}

// holeOf finds the value of src, an agent's line, that is content's
// bytes, where a message of that content keeps null instead (Slim): its
// span in src and the name of its hole; "" when there is none.
func holeOf(src, content []byte) (start, end int, name string) {
	if len(content) < minHole || backing.FirstByte(src) != '{' {
		return 0, 0, ""
	}
	for _, h := range holes {
		s, e, ok := backing.MemberSpan(src, h.path...)
		if ok && bytes.Equal(src[s:e], h.value(content)) {
			return s, e, h.name
		}
	}
	return 0, 0, ""
}

// appendHoleName ends a slim message, out less its closing brace, with
// the member that names its hole.
func appendHoleName(out []byte, name string) []byte {
	out = append(out, `,"source_hole":"`...)
	out = append(out, name...)
	return append(out, `"}`...)
}

// value is what the hole holds of content: content itself, or its one
// element. A block hole's value is compared whole with the line's, so a
// content of several elements never matches.
func (h hole) value(content []byte) []byte {
	if !h.block {
		return content
	}
	if len(content) < 2 || content[0] != '[' || content[len(content)-1] != ']' {
		return nil
	}
	return content[1 : len(content)-1]
}

// fill puts content back into src, the "source" of a slim message, at the
// hole of that name.
func fill(src []byte, name string, content []byte) ([]byte, error) {
	for _, h := range holes {
		if h.name != name {
			continue
		}
		s, e, ok := backing.MemberSpan(src, h.path...)
		val := h.value(content)
		if !ok || string(src[s:e]) != "null" || val == nil {
			return nil, fmt.Errorf("importer: the source's hole %q is not where it should be", name)
		}
		out := make([]byte, 0, len(src)-4+len(val))
		out = append(out, src[:s]...)
		out = append(out, val...)
		return append(out, src[e:]...), nil
	}
	return nil, fmt.Errorf("importer: unknown source hole %q (a store written by a newer sessfs?)", name)
}
