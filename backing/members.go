package backing

import "bytes"

// EachMember calls fn with every member of the JSON object obj, in order,
// its key decoded and its value raw. obj must be valid JSON (json.Valid):
// it scans, it does not check. EachMember reports false when obj is not
// an object. Keys are matched
// exactly by the callers, unlike encoding/json, which would take "Role" or
// "CONTENT" for "role" and "content" where the renderers (which match
// exactly) would then find no role and no content.
func EachMember(obj []byte, fn func(key string, val []byte)) bool {
	return eachMemberAt(obj, func(key string, vs, ve int) { fn(key, obj[vs:ve]) })
}

// eachMemberAt is EachMember giving where each value starts and ends in
// obj rather than the value.
func eachMemberAt(obj []byte, fn func(key string, vs, ve int)) bool {
	i := skipWS(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	i = skipWS(obj, i+1)
	for i < len(obj) && obj[i] != '}' {
		ke := skipStr(obj, i)
		vs := skipWS(obj, skipWS(obj, ke)+1) // past the ':'
		ve := skipVal(obj, vs)
		fn(keyOf(obj[i:ke]), vs, ve)
		i = skipWS(obj, ve)
		if i < len(obj) && obj[i] == ',' {
			i = skipWS(obj, i+1)
		}
	}
	return true
}

// keyOf is the quoted key q decoded. The keys the store's and the
// agents' lines repeat on every line are given as constants: a string made
// of each key of every line walked was a tenth of an import's time.
func keyOf(q []byte) string {
	if len(q) < 2 || bytes.IndexByte(q, '\\') >= 0 {
		return stringOf(q)
	}
	switch k := q[1 : len(q)-1]; string(k) { // no allocation: Go compares in place
	case "id":
		return "id"
	case "role":
		return "role"
	case "content":
		return "content"
	case "ts":
		return "ts"
	case "context":
		return "context"
	case "event":
		return "event"
	case "continues":
		return "continues"
	case "source":
		return "source"
	case "source_seq":
		return "source_seq"
	case "source_hole":
		return "source_hole"
	case "source_line":
		return "source_line"
	case "type":
		return "type"
	case "text":
		return "text"
	case "name":
		return "name"
	case "input":
		return "input"
	case "uuid":
		return "uuid"
	case "parentUuid":
		return "parentUuid"
	case "logicalParentUuid":
		return "logicalParentUuid"
	case "isSidechain":
		return "isSidechain"
	case "isMeta":
		return "isMeta"
	case "userType":
		return "userType"
	case "sessionId":
		return "sessionId"
	case "cwd":
		return "cwd"
	case "timestamp":
		return "timestamp"
	case "version":
		return "version"
	case "gitBranch":
		return "gitBranch"
	case "slug":
		return "slug"
	case "message":
		return "message"
	case "model":
		return "model"
	case "requestId":
		return "requestId"
	case "tool_use_id":
		return "tool_use_id"
	case "usage":
		return "usage"
	case "payload":
		return "payload"
	default:
		return string(k)
	}
}

// MemberSpan finds the value at path (a key of obj, a key of that
// value, …) in the valid JSON object obj and returns where it starts and
// ends in obj; ok is false when a key on the way is missing or its value
// is not an object. Like Members, it takes the last of a key given twice.
// It lets a caller cut or splice one value of a line without decoding it.
func MemberSpan(obj []byte, path ...string) (start, end int, ok bool) {
	if len(path) == 0 {
		return 0, 0, false
	}
	start, end = -1, -1
	eachMemberAt(obj, func(key string, vs, ve int) {
		if key == path[0] {
			start, end = vs, ve
		}
	})
	if start < 0 {
		return 0, 0, false
	}
	if len(path) == 1 {
		return start, end, true
	}
	s, e, ok := MemberSpan(obj[start:end], path[1:]...)
	return start + s, start + e, ok
}

// Members finds the top-level members of the valid JSON object obj named
// in keys and returns their raw values in that order (nil for one it does
// not have; the last of a key given twice, as a decoder keeps). Keys match
// exactly. It reads obj once and decodes nothing: a stored message's or an
// importer-built line's few fields, read per line, cost a scan instead of
// a validation and a decode each.
func Members(obj []byte, keys ...string) [][]byte {
	out := make([][]byte, len(keys))
	EachMember(obj, func(key string, val []byte) {
		for i, k := range keys {
			if k == key {
				out[i] = val
			}
		}
	})
	return out
}

// StringOf is the value of the JSON string v, "" for anything else.
func StringOf(v []byte) string { return stringOf(v) }

// eachElement calls fn with every element of the JSON array arr, raw; arr
// must be valid JSON. It reports false when arr is not an array.
func eachElement(arr []byte, fn func(val []byte)) bool {
	i := skipWS(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return false
	}
	i = skipWS(arr, i+1)
	for i < len(arr) && arr[i] != ']' {
		ve := skipVal(arr, i)
		fn(arr[i:ve])
		i = skipWS(arr, ve)
		if i < len(arr) && arr[i] == ',' {
			i = skipWS(arr, i+1)
		}
	}
	return true
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipStr returns the end of the string starting at b[i] (a '"'). It
// jumps from quote to quote (IndexByte), as content is mostly long
// strings: a quote ends the string unless an odd number of backslashes
// escapes it.
func skipStr(b []byte, i int) int {
	for i++; i < len(b); i++ {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return len(b)
		}
		i += q
		n := 0
		for n < i && b[i-1-n] == '\\' {
			n++
		}
		if n%2 == 0 {
			return i + 1
		}
	}
	return len(b)
}

// skipVal returns the end of the valid JSON value starting at b[i].
func skipVal(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipStr(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipStr(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	return i
}
