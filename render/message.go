package render

import (
	"bytes"
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
	key   []byte
	val   json.RawMessage
	plain bool // val is a string with no escape: its text is its bytes, if valid UTF-8
	ascii bool // val is a plain string of ASCII bytes only: its text is its bytes
}

// get returns the value of the member key, or nil when there is none; of
// the last such member when there are several, as json.Unmarshal keeps.
func (o object) get(key string) json.RawMessage {
	for i := len(o) - 1; i >= 0; i-- {
		if string(o[i].key) == key {
			return o[i].val
		}
	}
	return nil
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
		o = append(o, member{[]byte(k), v, false, false})
	}
	return o, true
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
	if b, ok := o.plainBytes(key); ok {
		return plainString(b), true
	}
	return asString(o.get(key))
}

// plainBytes is plainBytes(o.get(key)), without a second scan of the
// value: the string's text, still in the message's bytes, when it has no
// escape and is valid UTF-8.
func (o object) plainBytes(key string) ([]byte, bool) {
	for i := len(o) - 1; i >= 0; i-- {
		if string(o[i].key) == key {
			if !o[i].plain {
				return nil, false
			}
			in := o[i].val[1 : len(o[i].val)-1]
			return in, o[i].ascii || utf8.Valid(in)
		}
	}
	return nil, false
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
	if kind(v) != '[' {
		return nil, false
	}
	if a, ok := scanArray(v); ok {
		return a, true
	}
	var a []json.RawMessage // scanArray refuses only what this refuses too
	if err := json.Unmarshal(v, &a); err != nil {
		return nil, false
	}
	return a, true
}

// isString reports whether the field key is the JSON string s, spelled
// without escapes; it decodes nothing, so it costs no allocation.
func (o object) isString(key, s string) bool {
	v := bytes.TrimSpace(o.get(key))
	return len(v) == len(s)+2 && v[0] == '"' && v[len(v)-1] == '"' && string(v[1:len(v)-1]) == s
}

// isTrue reports whether the field key is the JSON literal true.
func (o object) isTrue(key string) bool {
	return string(bytes.TrimSpace(o.get(key))) == "true"
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
