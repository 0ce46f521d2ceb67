package render

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"unicode/utf8"
)

// Message is what render needs of one stored message.
type Message struct {
	Raw  []byte // the stored JSON object, one line, no trailing newline
	Turn int    // n > 0 when this message starts turn n; 0 when it continues a turn
	// Note is a mark the caller adds, one line: on an event, what a
	// transcript shows of it (a turn interrupted, a run errored), which
	// is otherwise nothing; on another message, a note on the turn
	// before, shown before the message and its heading (the turn before
	// it was cut off). The caller decides it from the message and what
	// came before it, never what comes after, so a piece never changes.
	Note string
}

// object is a JSON object whose values are kept raw: fields are decoded only
// when needed, and values such as a tool's input can be shown byte for byte.
// Its members are a slice in the order written, not a map: the objects of
// a message have a few members each, and building a map of each cost more
// than every look-up in it.
type object []member

// member is a member of an object: its name decoded (a slice of the
// message itself when the name has no escapes, as it nearly always has
// not), its value raw.
type member struct {
	key []byte
	value
}

// value is a member's value, raw, with what the scanner saw of it; the
// zero value is no value at all.
type value struct {
	val   json.RawMessage
	plain bool // val is a string with no escape: its text is its bytes, if valid UTF-8
	ascii bool // val is a plain string of ASCII bytes only: its text is its bytes
}

// value returns the member key's value, or the zero value when there is
// none; the last such member's when there are several, as json.Unmarshal
// keeps.
func (o object) value(key string) value {
	for i := len(o) - 1; i >= 0; i-- {
		if string(o[i].key) == key {
			return o[i].value
		}
	}
	return value{}
}

// get returns the value of the member key, or nil when there is none.
func (o object) get(key string) json.RawMessage {
	return o.value(key).val
}

// fields are the members of a message's object that rendering reads,
// found in one pass: looked up one by one, each several times, they were
// a fifth of rendering a short message. They hold no reference to the
// object, whose members the caller keeps on its stack.
type fields struct {
	role string // the role's text, "" when there is none or it is no string

	roleVal, content, context, continues, toolCalls, toolCallID, ts value
}

// readFields finds o's members that fields keeps: the last of each name,
// as object.value.
func readFields(o object) fields {
	var f fields
	for _, m := range o {
		switch string(m.key) {
		case "role":
			f.roleVal = m.value
		case "content":
			f.content = m.value
		case "context":
			f.context = m.value
		case "continues":
			f.continues = m.value
		case "tool_calls":
			f.toolCalls = m.value
		case "tool_call_id":
			f.toolCallID = m.value
		case "ts":
			f.ts = m.value
		}
	}
	f.role, _ = f.roleVal.str()
	return f
}

// parseObject decodes raw as a JSON object. It reports false for anything
// else, including valid JSON that is not an object (null, arrays, numbers).
func parseObject(raw []byte) (object, bool) {
	return parseObjectIn(nil, raw)
}

// objectBuf holds the members of a message's object or of a block where
// the caller declares it, so that when the object does not outlive the
// caller (most do not) its members cost no allocation.
type objectBuf [16]member

// parseObjectIn is parseObject appending the members to buf[:0], which
// may be an objectBuf of the caller's.
func parseObjectIn(buf object, raw []byte) (object, bool) {
	if kind(raw) != '{' {
		return nil, false
	}
	if buf == nil {
		buf = make(object, 0, 8)
	}
	if o, ok := scanObjectIn(buf[:0], raw); ok {
		return o, true
	}
	var m map[string]json.RawMessage // scanObject refuses only what this refuses too
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, false
	}
	o := make(object, 0, len(m))
	for k, v := range m {
		o = append(o, member{[]byte(k), value{v, false, false}})
	}
	return o, true
}

// validUTF8 is utf8.Valid, three times quicker on text that is mostly
// ASCII, as nearly every piece is: it skips ASCII a word at a time and
// decodes only the characters that are not.
func validUTF8(b []byte) bool {
	for i := 0; i < len(b); {
		switch {
		case i+8 <= len(b) && binary.LittleEndian.Uint64(b[i:])&0x8080808080808080 == 0:
			i += 8
		case b[i] < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 { // how DecodeRune tells an invalid byte
				return false
			}
			i += size
		}
	}
	return true
}

// kind returns the first byte of a JSON value ('{', '[', '"', 'n', 't', 'f',
// a digit or '-'), or 0 for an empty value. It is how we tell a string from
// an array or null before decoding (json.Unmarshal of null into a string
// succeeds silently, which would hide the difference).
func kind(v []byte) byte {
	if i := skipSpace(v, 0); i < len(v) {
		return v[i]
	}
	return 0
}

// str returns the field key when it is a JSON string.
func (o object) str(key string) (string, bool) {
	return o.value(key).str()
}

// str returns v's text when it is a JSON string.
func (v value) str() (string, bool) {
	if b, ok := v.plainBytes(); ok {
		return plainString(b), true
	}
	return asString(v.val)
}

// plainBytes is plainBytes(v.val), without a second scan of the value:
// the string's text, still in the message's bytes, when it has no escape
// and is valid UTF-8.
func (v value) plainBytes() ([]byte, bool) {
	if !v.plain {
		return nil, false
	}
	in := v.val[1 : len(v.val)-1]
	return in, v.ascii || validUTF8(in)
}

// asString decodes v when it is a JSON string.
func asString(v json.RawMessage) (string, bool) {
	if kind(v) != '"' {
		return "", false
	}
	return unquote(v)
}

// asArray decodes v when it is a JSON array, keeping its elements raw.
func asArray(v json.RawMessage) ([]json.RawMessage, bool) {
	return asArrayIn([]json.RawMessage{}, v)
}

// arrayBuf holds the elements of a message's content where the caller
// declares it, so that they cost no allocation when there are few.
type arrayBuf [16]json.RawMessage

// asArrayIn is asArray appending the elements to a, which may be an
// arrayBuf of the caller's; a must not be nil.
func asArrayIn(a []json.RawMessage, v json.RawMessage) ([]json.RawMessage, bool) {
	if kind(v) != '[' {
		return nil, false
	}
	if a, ok := scanArrayIn(a, v); ok {
		return a, true
	}
	var all []json.RawMessage // scanArray refuses only what this refuses too
	if err := json.Unmarshal(v, &all); err != nil {
		return nil, false
	}
	return all, true
}

// isString reports whether v is the JSON string s, spelled without
// escapes; it decodes nothing, so it costs no allocation.
func (v value) isString(s string) bool {
	b := bytes.TrimSpace(v.val)
	return len(b) == len(s)+2 && b[0] == '"' && b[len(b)-1] == '"' && string(b[1:len(b)-1]) == s
}

// isTrue reports whether the field key is the JSON literal true.
func (o object) isTrue(key string) bool {
	return o.value(key).isTrue()
}

// isTrue reports whether v is the JSON literal true.
func (v value) isTrue() bool {
	return string(bytes.TrimSpace(v.val)) == "true"
}

// blockType returns the "type" of a content block, or "" when v is not an
// object with a string type. It builds the block on the stack, with no
// allocation: it is asked of every block of a message before the block
// is rendered.
func blockType(v json.RawMessage) string {
	var buf objectBuf
	o, ok := scanObjectIn(buf[:0], v)
	if !ok {
		return ""
	}
	t, _ := o.str("type")
	return t
}
