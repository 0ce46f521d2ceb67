package render

import (
	"bytes"
	"encoding/json"
	"strings"
)

// jsonDisplay is how a JSON value is shown: indented, keeping its own bytes
// (key order, number spelling) but not the HTML escapes Go's encoder adds,
// when it is at most maxIndentDepth deep and its indented form is at most
// room bytes; else as written. Indenting puts the depth's indent on every
// line, so it is what turns a small, deep value into a huge one.
func jsonDisplay(v []byte, room int) string {
	if len(v) > room { // indentedSize(v) ≥ len(v): no need to count
		return string(v)
	}
	if size, ok := indentedSize(v); ok && size <= room {
		var buf bytes.Buffer
		buf.Grow(size)
		if json.Indent(&buf, v, "", "  ") == nil {
			return string(unescapeHTML(buf.Bytes()))
		}
	}
	return string(v)
}

// indentedSize is at least the size of v indented by json.Indent with two
// spaces: a newline and the indent at most after each '{', '[' and ',' and
// before each '}' and ']', a space after each ':'. It counts every byte of
// v at least once, so it is never less than len(v). It reports false when
// v nests deeper than maxIndentDepth.
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

// unescapeHTML turns the escapes \u003c, \u003e and \u0026 that Go's
// encoding/json writes for <, > and & back into the characters, so code in
// a tool's input reads as code ("a -> b", not "a -\u003e b"). Other escapes
// are copied as they are, and an escaped backslash is skipped as a pair so
// that "\\u003c" (a literal backslash then "u003c") is left alone. b
// itself is returned when it holds no escape of the kind, as most JSON
// does not.
func unescapeHTML(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u00`)) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			out = append(out, b[i])
			continue
		}
		if b[i+1] == 'u' && i+6 <= len(b) {
			switch strings.ToLower(string(b[i+2 : i+6])) {
			case "003c":
				out, i = append(out, '<'), i+5
				continue
			case "003e":
				out, i = append(out, '>'), i+5
				continue
			case "0026":
				out, i = append(out, '&'), i+5
				continue
			}
		}
		out, i = append(out, b[i], b[i+1]), i+1
	}
	return out
}
