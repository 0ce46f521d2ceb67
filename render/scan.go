package render

import (
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// scanObject splits a JSON object into its members without the reflection
// and allocations of json.Unmarshal, which dominated rendering. It accepts
// exactly what encoding/json accepts (FuzzScanObject holds it to that) and
// reports false for anything else, so callers can fall back on the
// standard decoder for its error.
func scanObject(raw []byte) (object, bool) {
	return scanObjectIn(make(object, 0, 8), raw)
}

// scanObjectIn is scanObject appending the members to o, which may be
// an objectBuf of the caller's.
func scanObjectIn(o object, raw []byte) (object, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, false
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return objectEnd(o, raw, i)
	}
	for {
		ks := i
		ke, plainKey, asciiKey, ok := scanString(raw, i)
		if !ok {
			return nil, false
		}
		key := raw[ks+1 : ke-1]
		if !plainKey || !asciiKey && !utf8.Valid(key) { // as plainBytes, without a second scan
			s, ok := unquote(raw[ks:ke])
			if !ok {
				return nil, false
			}
			key = []byte(s)
		}
		i = skipSpace(raw, ke)
		if i >= len(raw) || raw[i] != ':' {
			return nil, false
		}
		vs := skipSpace(raw, i+1)
		var ve int
		plain, ascii := false, false
		if vs < len(raw) && raw[vs] == '"' {
			ve, plain, ascii, ok = scanString(raw, vs)
		} else {
			ve, ok = skipValue(raw, vs, 2) // inside the object: one level down
		}
		if !ok {
			return nil, false
		}
		o = append(o, member{key, value{json.RawMessage(raw[vs:ve:ve]), plain, plain && ascii}})
		i = skipSpace(raw, ve)
		if i >= len(raw) {
			return nil, false
		}
		switch raw[i] {
		case ',':
			i = skipSpace(raw, i+1)
		case '}':
			return objectEnd(o, raw, i)
		default:
			return nil, false
		}
	}
}

// objectEnd returns o when nothing but white space follows the object's
// closing brace, at raw[i].
func objectEnd(o object, raw []byte, i int) (object, bool) {
	if skipSpace(raw, i+1) != len(raw) {
		return nil, false
	}
	return o, true
}

// scanArray splits a JSON array into its elements as scanObject splits an
// object: it accepts exactly what json.Unmarshal into a []json.RawMessage
// accepts (FuzzScanArray), and reports false for anything else.
func scanArray(raw []byte) ([]json.RawMessage, bool) {
	return scanArrayIn([]json.RawMessage{}, raw)
}

// scanArrayIn is scanArray appending the elements to a, which may be a
// buffer of the caller's; a must not be nil.
func scanArrayIn(a []json.RawMessage, raw []byte) ([]json.RawMessage, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return nil, false
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return a, skipSpace(raw, i+1) == len(raw)
	}
	for {
		ve, ok := skipValue(raw, i, 2) // inside the array: one level down
		if !ok {
			return nil, false
		}
		a = append(a, json.RawMessage(raw[i:ve:ve]))
		i = skipSpace(raw, ve)
		if i >= len(raw) {
			return nil, false
		}
		switch raw[i] {
		case ',':
			i = skipSpace(raw, i+1)
		case ']':
			return a, skipSpace(raw, i+1) == len(raw)
		default:
			return nil, false
		}
	}
}

// validJSON reports whether b is one JSON value with nothing but white
// space around it, as json.Valid does (FuzzValidJSON holds it to that),
// at the scanner's speed.
func validJSON(b []byte) bool {
	end, ok := skipValue(b, skipSpace(b, 0), 1)
	return ok && skipSpace(b, end) == len(b)
}

// unquote decodes v, a JSON string with white space around it or not, as
// json.Unmarshal into a string does (FuzzUnquote holds it to that), at a
// fraction of its cost: most text of a message has escapes (a newline is
// one). Invalid UTF-8 and lone surrogates become U+FFFD.
func unquote(v []byte) (string, bool) {
	if in, ok := plainBytes(v); ok {
		return plainString(in), true
	}
	start := skipSpace(v, 0)
	end, ok := skipString(v, start)
	if !ok || skipSpace(v, end) != len(v) {
		return "", false
	}
	in := v[start+1 : end-1] // skipString allows only JSON's escapes
	var b strings.Builder
	b.Grow(len(in))
	for i := 0; i < len(in); {
		j := plainRun(in, i)
		appendValidUTF8(&b, in[i:j])
		if i = j; i == len(in) {
			break
		}
		// in[i] is a backslash: plainRun stops at nothing else here.
		switch c := in[i+1]; c {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r := hex4(in[i+2 : i+6])
			i += 6
			if utf16.IsSurrogate(r) {
				// The high half of a pair, if the next escape is the low one.
				if i+6 <= len(in) && in[i] == '\\' && in[i+1] == 'u' {
					if pair := utf16.DecodeRune(r, hex4(in[i+2:i+6])); pair != utf8.RuneError {
						b.WriteRune(pair)
						i += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			b.WriteRune(r)
			continue
		default: // '"', '\\' or '/'
			b.WriteByte(c)
		}
		i += 2
	}
	return b.String(), true
}

// plainString is string(b), but for the names that nearly every message
// or block holds (its role, its type, a tool's status), which it returns
// without a copy: they were a third of the allocations of rendering a
// short message.
func plainString(b []byte) string {
	if len(b) > len("custom_tool_call_output") {
		return string(b)
	}
	switch string(b) { // compiled to comparisons, which do not copy b
	case "user":
		return "user"
	case "assistant":
		return "assistant"
	case "system":
		return "system"
	case "tool":
		return "tool"
	case "developer":
		return "developer"
	case "event":
		return "event"
	case "text":
		return "text"
	case "input_text":
		return "input_text"
	case "output_text":
		return "output_text"
	case "thinking":
		return "thinking"
	case "reasoning":
		return "reasoning"
	case "summary_text":
		return "summary_text"
	case "tool_use":
		return "tool_use"
	case "tool_result":
		return "tool_result"
	case "function_call":
		return "function_call"
	case "function_call_output":
		return "function_call_output"
	case "custom_tool_call":
		return "custom_tool_call"
	case "custom_tool_call_output":
		return "custom_tool_call_output"
	case "message":
		return "message"
	case "completed":
		return "completed"
	case "in_progress":
		return "in_progress"
	case "pending":
		return "pending"
	case "Bash":
		return "Bash"
	case "Read":
		return "Read"
	case "Edit":
		return "Edit"
	case "Write":
		return "Write"
	case "Grep":
		return "Grep"
	case "Glob":
		return "Glob"
	case "TodoWrite":
		return "TodoWrite"
	case "shell":
		return "shell"
	case "exec_command":
		return "exec_command"
	case "apply_patch":
		return "apply_patch"
	case "update_plan":
		return "update_plan"
	}
	return string(b)
}

// plainBytes returns the text of the common string with no escapes, still
// in v's bytes, or false for any other: one that unquote would decode
// otherwise than copy.
func plainBytes(v []byte) ([]byte, bool) {
	v = v[skipSpace(v, 0):]
	for len(v) > 0 && (v[len(v)-1] == ' ' || v[len(v)-1] == '\t' || v[len(v)-1] == '\r' || v[len(v)-1] == '\n') {
		v = v[:len(v)-1]
	}
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return nil, false
	}
	in := v[1 : len(v)-1]
	if plainRun(in, 0) != len(in) {
		return nil, false
	}
	if !utf8.Valid(in) { // Unmarshal would put U+FFFD in
		return nil, false
	}
	return in, true
}

// appendValidUTF8 writes s to b with each byte that is not part of valid
// UTF-8 replaced by U+FFFD, as encoding/json decodes it (bytes.ToValidUTF8
// replaces a run of them with one).
func appendValidUTF8(b *strings.Builder, s []byte) {
	if utf8.Valid(s) {
		b.Write(s)
		return
	}
	for len(s) > 0 {
		r, size := utf8.DecodeRune(s)
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.Write(s[:size])
		}
		s = s[size:]
	}
}

// hex4 reads four hex digits, which skipString has checked.
func hex4(h []byte) rune {
	var r rune
	for _, c := range h {
		switch {
		case c <= '9':
			c -= '0'
		case c <= 'F':
			c -= 'A' - 10
		default:
			c -= 'a' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the JSON value starting at b[i].
func skipValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch c := b[i]; {
	case c == '"':
		return skipString(b, i)
	case c == '{' || c == '[':
		return skipComposite(b, i, depth)
	case c == 't':
		return skipLiteral(b, i, "true")
	case c == 'f':
		return skipLiteral(b, i, "false")
	case c == 'n':
		return skipLiteral(b, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return skipNumber(b, i)
	}
	return 0, false
}

func skipLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, false
	}
	return i + len(lit), true
}

// skipComposite skips an object or array, members included.
func skipComposite(b []byte, i, depth int) (int, bool) {
	if depth > maxDepth {
		return 0, false
	}
	isObj := b[i] == '{'
	closer := byte(']')
	if isObj {
		closer = '}'
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == closer {
		return i + 1, true
	}
	for {
		var ok bool
		if isObj {
			if i, ok = skipString(b, i); !ok {
				return 0, false
			}
			i = skipSpace(b, i)
			if i >= len(b) || b[i] != ':' {
				return 0, false
			}
			i = skipSpace(b, i+1)
		}
		if i, ok = skipValue(b, i, depth+1); !ok {
			return 0, false
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return 0, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case closer:
			return i + 1, true
		default:
			return 0, false
		}
	}
}

// skipString skips a string: no raw control characters, only JSON's
// escapes. Other bytes, invalid UTF-8 included, pass as encoding/json lets
// them.
func skipString(b []byte, i int) (int, bool) {
	end, _, _, ok := scanString(b, i)
	return end, ok
}

// scanString is skipString that also reports whether the string is plain
// (without an escape, its text is its bytes, if they are valid UTF-8) and
// whether its bytes are all ASCII: a plain ASCII string, as nearly every
// name and short value is, needs no UTF-8 check when it is read.
func scanString(b []byte, i int) (end int, plain, ascii, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false, false, false
	}
	plain = true
	var high byte // the bytes of the string ORed: its high bit is set by any non-ASCII one
	for i++; ; i++ {
		var h byte
		i, h = plainRunHigh(b, i)
		high |= h
		if i >= len(b) {
			return 0, false, false, false
		}
		switch b[i] {
		case '"':
			return i + 1, plain, high < utf8.RuneSelf, true
		case '\\':
			plain = false
			i++
			if i >= len(b) {
				return 0, false, false, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(b)-i < 5 {
					return 0, false, false, false
				}
				for _, h := range b[i+1 : i+5] {
					if !isHex(h) {
						return 0, false, false, false
					}
				}
				i += 4
			default:
				return 0, false, false, false
			}
		default: // a control character
			return 0, false, false, false
		}
	}
}

// plainRun returns where the run of bytes from b[i] that a JSON string
// holds as they are ends: at the first quote, backslash or control
// character, or at len(b). Most of a message is long runs, so it goes
// eight bytes at a time.
func plainRun(b []byte, i int) int {
	end, _ := plainRunHigh(b, i)
	return end
}

// plainRunHigh is plainRun that also returns the run's bytes ORed
// together, whose high bit says whether any is not ASCII: it costs one
// instruction a word while the run is read anyway.
func plainRunHigh(b []byte, i int) (end int, high byte) {
	var or uint64
	for i+8 <= len(b) {
		x := binary.LittleEndian.Uint64(b[i:])
		if m := special8(x); m != 0 {
			// The lowest mark is the first byte that ends the run
			// (special8): take the bytes before it, with no byte loop.
			n := bits.TrailingZeros64(m) / 8
			return i + n, fold8(or | x&(1<<(8*n)-1))
		}
		or |= x
		i += 8
	}
	high = fold8(or)
	for i < len(b) && b[i] >= 0x20 && b[i] != '"' && b[i] != '\\' {
		high |= b[i]
		i++
	}
	return i, high
}

// fold8 ORs the eight bytes of x together.
func fold8(x uint64) byte {
	x |= x >> 32
	x |= x >> 16
	return byte(x | x>>8)
}

// special8 marks, by its high bit, each of the eight bytes of x that is
// a quote, a backslash or below 0x20 (the bit tricks of "Bit Twiddling
// Hacks": a byte is zero, or less than n, where its high bit survives),
// as backing's scanner does. A borrow may mark a byte above a marked one
// wrongly, never one below: the lowest mark is exact.
func special8(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zero := func(v uint64) uint64 { return (v - ones) & ^v & highs }
	less20 := (x - 0x20*ones) & ^x & highs
	return less20 | zero(x^('"'*ones)) | zero(x^('\\'*ones))
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// skipNumber skips a number in JSON's grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func skipNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = skipDigits(b, i)
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		j := skipDigits(b, i+1)
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := skipDigits(b, i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}

func skipDigits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}
