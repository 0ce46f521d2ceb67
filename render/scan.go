package render

import (
	"encoding/binary"
	"encoding/json"
)

// scanObject splits a JSON object into its members without the reflection
// and allocations of json.Unmarshal, which dominated rendering. It accepts
// exactly what encoding/json accepts (FuzzScanObject holds it to that) and
// reports false for anything else, so callers can fall back on the
// standard decoder for its error.
func scanObject(raw []byte) (object, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, false
	}
	o := make(object, 0, 8)
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return o, skipSpace(raw, i+1) == len(raw)
	}
	for {
		ks := i
		ke, ok := skipString(raw, i)
		if !ok {
			return nil, false
		}
		key, ok := plainBytes(raw[ks:ke])
		if !ok {
			var s string
			if json.Unmarshal(raw[ks:ke], &s) != nil {
				return nil, false
			}
			key = []byte(s)
		}
		i = skipSpace(raw, ke)
		if i >= len(raw) || raw[i] != ':' {
			return nil, false
		}
		vs := skipSpace(raw, i+1)
		ve, ok := skipValue(raw, vs, 2) // inside the object: one level down
		if !ok {
			return nil, false
		}
		o = append(o, member{key, json.RawMessage(raw[vs:ve:ve])})
		i = skipSpace(raw, ve)
		if i >= len(raw) {
			return nil, false
		}
		switch raw[i] {
		case ',':
			i = skipSpace(raw, i+1)
		case '}':
			return o, skipSpace(raw, i+1) == len(raw)
		default:
			return nil, false
		}
	}
}

// scanArray splits a JSON array into its elements as scanObject splits an
// object: it accepts exactly what json.Unmarshal into a []json.RawMessage
// accepts (FuzzScanArray), and reports false for anything else.
func scanArray(raw []byte) ([]json.RawMessage, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return nil, false
	}
	a := []json.RawMessage{}
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
	if i >= len(b) || b[i] != '"' {
		return 0, false
	}
	for i++; ; i++ {
		i = plainRun(b, i)
		if i >= len(b) {
			return 0, false
		}
		switch b[i] {
		case '"':
			return i + 1, true
		case '\\':
			i++
			if i >= len(b) {
				return 0, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(b)-i < 5 {
					return 0, false
				}
				for _, h := range b[i+1 : i+5] {
					if !isHex(h) {
						return 0, false
					}
				}
				i += 4
			default:
				return 0, false
			}
		default: // a control character
			return 0, false
		}
	}
}

// plainRun returns where the run of bytes from b[i] that a JSON string
// holds as they are ends: at the first quote, backslash or control
// character, or at len(b). Most of a message is long runs, so it goes
// eight bytes at a time.
func plainRun(b []byte, i int) int {
	for i+8 <= len(b) && plain8(binary.LittleEndian.Uint64(b[i:])) {
		i += 8
	}
	for i < len(b) && b[i] >= 0x20 && b[i] != '"' && b[i] != '\\' {
		i++
	}
	return i
}

// plain8 says whether none of the eight bytes of x is a quote, a
// backslash or below 0x20 (the bit tricks of "Bit Twiddling Hacks": a
// byte is zero, or less than n, where its high bit survives), as
// backing's scanner does.
func plain8(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zero := func(v uint64) uint64 { return (v - ones) & ^v & highs }
	less20 := (x - 0x20*ones) & ^x & highs
	return less20|zero(x^('"'*ones))|zero(x^('\\'*ones)) == 0
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
