package backing

import "encoding/binary"

// ScanJSON says whether b is valid JSON, exactly as json.Valid does, and
// whether it is also compact: json.Compact would give b back unchanged
// (no whitespace outside strings). It is one pass over b with no
// allocation, several times faster than json.Valid's state machine,
// whose per-byte calls were the most of an import's time: every stored
// line is checked once, by it, where it enters (Prepare, an importer's
// decode).
func ScanJSON(b []byte) (valid, compact bool) {
	s := jsonScan{b: b, compact: true}
	i := s.ws(0)
	i = s.value(i)
	if i < 0 {
		return false, false
	}
	if i = s.ws(i); i != len(b) {
		return false, false
	}
	return true, s.compact
}

// maxDepth is encoding/json's limit of nested arrays and objects: a
// deeper document is not valid to it, so not to ScanJSON.
const maxDepth = 10000

type jsonScan struct {
	b       []byte
	compact bool
}

// ws skips whitespace from i, noting that b is not compact if any.
func (s *jsonScan) ws(i int) int {
	j := skipWS(s.b, i)
	if j != i {
		s.compact = false
	}
	return j
}

// value checks the value at b[i] and returns where it ends, -1 if it is
// not valid. Arrays and objects are walked with an explicit stack rather
// than recursion, so that depth costs no goroutine stack.
func (s *jsonScan) value(i int) int {
	b := s.b
	var stackBuf [64]bool // true: an object
	stack := stackBuf[:0]
	for {
		// A value starts at i.
		if i >= len(b) {
			return -1
		}
		switch c := b[i]; {
		case c == '"':
			if i = s.str(i); i < 0 {
				return -1
			}
		case c == '{' || c == '[':
			if len(stack) >= maxDepth {
				return -1
			}
			obj := c == '{'
			stack = append(stack, obj)
			i = s.ws(i + 1)
			if i < len(b) && (obj && b[i] == '}' || !obj && b[i] == ']') {
				stack = stack[:len(stack)-1]
				i++
				break
			}
			if obj {
				if i = s.key(i); i < 0 {
					return -1
				}
			}
			continue
		case c == '-' || c >= '0' && c <= '9':
			if i = number(b, i); i < 0 {
				return -1
			}
		case c == 't':
			if i = literal(b, i, "true"); i < 0 {
				return -1
			}
		case c == 'f':
			if i = literal(b, i, "false"); i < 0 {
				return -1
			}
		case c == 'n':
			if i = literal(b, i, "null"); i < 0 {
				return -1
			}
		default:
			return -1
		}
		// A value ended at i: go on in its container.
		for {
			if len(stack) == 0 {
				return i
			}
			i = s.ws(i)
			if i >= len(b) {
				return -1
			}
			obj := stack[len(stack)-1]
			if b[i] == ',' {
				i = s.ws(i + 1)
				if obj {
					if i = s.key(i); i < 0 {
						return -1
					}
				}
				break
			}
			if obj && b[i] == '}' || !obj && b[i] == ']' {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			return -1
		}
	}
}

// key checks an object's key and its colon at b[i], and returns where
// its value starts.
func (s *jsonScan) key(i int) int {
	if i >= len(s.b) || s.b[i] != '"' {
		return -1
	}
	if i = s.str(i); i < 0 {
		return -1
	}
	i = s.ws(i)
	if i >= len(s.b) || s.b[i] != ':' {
		return -1
	}
	return s.ws(i + 1)
}

// strPlain marks the bytes a string holds as they are: not its quote,
// not a backslash, not a control character.
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// plain8 says whether the eight bytes of x are all strPlain: none is a
// quote, a backslash or below 0x20 (the bit tricks of "Bit Twiddling
// Hacks": a byte is zero, or less than n, where its high bit survives).
func plain8(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zero := func(v uint64) uint64 { return (v - ones) & ^v & highs }
	less20 := (x - 0x20*ones) & ^x & highs
	return less20|zero(x^('"'*ones))|zero(x^('\\'*ones)) == 0
}

// str checks the string at b[i] (a '"') and returns where it ends.
func (s *jsonScan) str(i int) int {
	b := s.b
	for i++; ; {
		// Eight bytes at a time while none of them ends the plain run:
		// most of a line is long strings.
		for i+8 <= len(b) && plain8(binary.LittleEndian.Uint64(b[i:])) {
			i += 8
		}
		for i < len(b) && strPlain[b[i]] {
			i++
		}
		if i >= len(b) {
			return -1
		}
		switch b[i] {
		case '"':
			return i + 1
		case '\\':
			if i+1 >= len(b) {
				return -1
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return -1
				}
				for _, h := range b[i+2 : i+6] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return -1
					}
				}
				i += 6
			default:
				return -1
			}
		default: // a control character
			return -1
		}
	}
}

// number checks the number at b[i] and returns where it ends.
func number(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		if i+1 >= len(b) || b[i+1] < '0' || b[i+1] > '9' {
			return -1
		}
		i = digits(b, i+1)
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return -1
		}
		i = digits(b, i)
	}
	return i
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

func literal(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}
