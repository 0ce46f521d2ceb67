package render

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
)

// scanObject must agree with json.Unmarshal into a map of raw values on
// every input: the same members where both accept, and a refusal exactly
// where Unmarshal refuses (parseObject then falls back on it).
func FuzzScanObject(f *testing.F) {
	for _, s := range []string{
		`{}`, ` { } `, `{"a":1}`, `{"a":"b","a":"c"}`, `{"k\u0041":[1,{"x":null}],"t":true,"f":false}`,
		`{"n":-0.5e+10}`, `{"n":01}`, `{"n":1.}`, `{"s":"\q"}`, "{\"s\":\"\x01\"}", `{"a":1,}`, `{"a" 1}`,
		`{"a":1}x`, `[1]`, `{"role":"user","ts":"t","role":"tool","content":[],"continues":true,"context":"c","tool_calls":null,"tool_call_id":"i"}`, `{"s":"\ud83d\ude00 é"}`, `{"long":"abcdefghijklmnopq\"rstuvwxyz\\0123456789"}`, "{\"long\":\"abcdefghijklmnopq\x1frstuvwx\"}", "{\"s\":\"\xff\"}", `{"a":{"b":[[]]}}`, `{"a":tru}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		o, ok := scanObject(raw)
		var want map[string]json.RawMessage
		err := json.Unmarshal(raw, &want)
		wantOK := err == nil && want != nil
		if ok != wantOK {
			t.Fatalf("scanObject(%q) ok=%v, json.Unmarshal ok=%v (%v)", raw, ok, wantOK, err)
		}
		got := map[string]json.RawMessage{}
		for _, m := range o {
			got[string(m.key)] = m.val
		}
		for k, v := range want { // o.get agrees with the map
			if ok && string(o.get(k)) != string(v) {
				t.Fatalf("scanObject(%q).get(%q) = %q, json.Unmarshal has %q", raw, k, o.get(k), v)
			}
			// o.str, which takes a plain string's text without decoding
			// it (plainBytes), decodes it as Unmarshal does.
			if ok && kind(v) == '"' {
				var s string
				json.Unmarshal(v, &s)
				if got, _ := o.str(k); got != s {
					t.Fatalf("scanObject(%q).str(%q) = %q, json.Unmarshal has %q", raw, k, got, s)
				}
			}
		}
		// readFields finds each member as object.value does.
		f := readFields(o)
		for key, v := range map[string]value{"role": f.roleVal, "content": f.content, "context": f.context,
			"continues": f.continues, "tool_calls": f.toolCalls, "tool_call_id": f.toolCallID, "ts": f.ts} {
			if w := o.value(key); string(w.val) != string(v.val) || w.plain != v.plain || w.ascii != v.ascii {
				t.Fatalf("readFields(%q) has %q for %q, object.value %q", raw, v.val, key, o.value(key).val)
			}
		}
		if role, _ := o.str("role"); f.role != role {
			t.Fatalf("readFields(%q) has role %q, object.str %q", raw, f.role, role)
		}
		if ok && !maps.EqualFunc(got, want, func(a, b json.RawMessage) bool { return string(a) == string(b) }) {
			t.Fatalf("scanObject(%q) = %q, json.Unmarshal = %q", raw, got, want)
		}
	})
}

// scanArray must agree with json.Unmarshal into a []json.RawMessage as
// scanObject does with a map.
func FuzzScanArray(f *testing.F) {
	for _, s := range []string{
		`[]`, ` [ ] `, `[1]`, `[1,"a",{"b":[2]},null,true,false]`, `[1,]`, `[,1]`, `[1 2]`, `[1]x`,
		`{"a":1}`, `["\q"]`, "[\"\x01\"]", `[01]`, `[-0.5e+10]`, `[[[]]]`, `[tru]`, "[\"\xff\"]", ` [ 1 , 2 ] `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, ok := scanArray(raw)
		var want []json.RawMessage
		err := json.Unmarshal(raw, &want)
		wantOK := err == nil && want != nil
		if ok != wantOK {
			t.Fatalf("scanArray(%q) ok=%v, json.Unmarshal ok=%v (%v)", raw, ok, wantOK, err)
		}
		if ok && !slices.EqualFunc(got, want, func(a, b json.RawMessage) bool { return string(a) == string(b) }) {
			t.Fatalf("scanArray(%q) = %q, json.Unmarshal = %q", raw, got, want)
		}
	})
}

// plainRun must stop at the first byte a JSON string cannot hold as it
// is, wherever it is in the eight bytes it reads at a time: every byte
// value at every position of a run.
func TestPlainRun(t *testing.T) {
	for c := range 256 {
		for at := range 20 {
			b := []byte("abcdefghijklmnopqrstuvwxyz")
			b[at] = byte(c)
			want := len(b)
			if c < 0x20 || c == '"' || c == '\\' {
				want = at
			}
			for from := range at + 1 {
				if got := plainRun(b, from); got != want {
					t.Fatalf("plainRun(%q, %d) = %d, want %d", b, from, got, want)
				}
				// The run's high bit is set exactly when it holds a
				// byte that is not ASCII.
				_, high := plainRunHigh(b, from)
				if wantHigh := want > at && c >= 0x80; (high >= 0x80) != wantHigh {
					t.Fatalf("plainRunHigh(%q, %d) = %#x, want a high bit %v", b, from, high, wantHigh)
				}
			}
		}
	}
}

// At encoding/json's nesting limit, the scanner accepts what it accepts,
// one level deeper too: a fuzzer does not reach 10,000 levels.
func TestScanDepth(t *testing.T) {
	for _, n := range []int{maxDepth - 1, maxDepth, maxDepth + 1} {
		arr := []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
		if validJSON(arr) != json.Valid(arr) {
			t.Errorf("validJSON of %d levels: %v", n, validJSON(arr))
		}
		obj := []byte(`{"a":` + string(arr[1:len(arr)-1]) + `}`) // n deep too
		var a []json.RawMessage
		var o map[string]json.RawMessage
		if _, ok := scanArray(arr); ok != (json.Unmarshal(arr, &a) == nil) {
			t.Errorf("scanArray of %d levels: ok=%v", n, ok)
		}
		if _, ok := scanObject(obj); ok != (json.Unmarshal(obj, &o) == nil) {
			t.Errorf("scanObject of %d levels: ok=%v", n, ok)
		}
	}
}

// validJSON must agree with json.Valid, which JSONMember's check was.
func FuzzValidJSON(f *testing.F) {
	for _, s := range []string{
		``, ` `, `1`, ` "a" `, `{}`, `[]`, `{"a":[1,{"b":null}]}`, `{"a":1}x`, `[1,]`, `01`, `-`, `1.5e`,
		`tru`, `nul`, "\"\xff\"", "\"\x01\"", `"\u00e9"`, `"\x"`, `{"a" 1}`, `{"role":"user","content":"cut off`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validJSON(b), json.Valid(b); got != want {
			t.Fatalf("validJSON(%q) = %v, json.Valid says %v", b, got, want)
		}
	})
}

// unquote must decode a string as json.Unmarshal does, and refuse what it
// refuses.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{
		`""`, ` "a" `, `"a\nb\t\"c\"\\d\/e\b\f\r"`, `"\u00e9\u0041"`, `"\ud83d\ude00"`, `"\ude00\ud83d"`,
		`"\ud83d"`, `"\ud83dx"`, `"\ud83d\u0041"`, `"\ud83d\n"`, "\"a\xffb\xc3\"", "\"\xe2\x82\\n\"", `"\u0000"`,
		`"\x"`, `"\u12"`, `"a" b`, `"a`, "\"\x01\"", `"\uD83D\uDE00"`, `"\uFFFD"`, `"é\n"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		if kind(v) != '"' {
			return // Unmarshal takes null into a string, asString does not
		}
		got, ok := unquote(v)
		var want string
		err := json.Unmarshal(v, &want)
		if ok != (err == nil) || got != want {
			t.Fatalf("unquote(%q) = %q, %v; json.Unmarshal: %q, %v", v, got, ok, want, err)
		}
	})
}
