package render

import (
	"bytes"
	"encoding/json"
)

// jsonDisplay is how a JSON value is shown: indented, keeping its own bytes
// (key order, number spelling) but not the HTML escapes Go's encoder adds,
// when it is at most maxIndentDepth deep and its indented form is at most
// room bytes; else as written. Indenting puts the depth's indent on every
// line, so it is what turns a small, deep value into a huge one.
func jsonDisplay(v []byte, room int) string {
	if size, ok := indentedSize(v); ok && size <= room {
		var buf bytes.Buffer
		if json.Indent(&buf, v, "", "  ") == nil {
			return string(unescapeHTML(buf.Bytes()))
		}
	}
	return string(v)
}

// indentedSize is at least the size of v indented by json.Indent with two
// spaces: a newline and the indent at most after each '{', '[' and ',' and
// before each '}' and ']', a space after each ':'. It reports false when v
// nests deeper than maxIndentDepth.
func indentedSize(v []byte) (int, bool) {
	size, depth := 0, 0
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '"':
			end, ok := skipString(v, i)
			if !ok {
				return 0, false
			}
			size += end - i
			i = end - 1
			continue
		case '{', '[':
			depth++
			if depth > maxIndentDepth {
				return 0, false
			}
			size += 2 + 2*depth
		case ',':
			size += 2 + 2*depth
		case '}', ']':
			depth--
			size += 2 + 2*max(depth, 0)
		case ':':
			size += 2
		default:
			size++
		}
	}
	return size, true
}
