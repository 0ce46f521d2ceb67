package backing

import "testing"

// Members finds top-level keys only, exactly as written, the last of a
// key given twice, and nil for a key not there.
func TestMembers(t *testing.T) {
	obj := []byte(`{"a":1, "b" : {"a":"inner","c":[1,{"d":2}]},"A":3,"s":"x\"y","a":"last","n":null}`)
	got := Members(obj, "a", "b", "c", "s", "n", "missing")
	want := []string{`"last"`, `{"a":"inner","c":[1,{"d":2}]}`, "", `"x\"y"`, "null", ""}
	for i, w := range want {
		if string(got[i]) != w || (w == "" && got[i] != nil) {
			t.Errorf("member %d: %q, want %q", i, got[i], w)
		}
	}
	if s := StringOf(got[3]); s != `x"y` {
		t.Errorf("StringOf: %q", s)
	}
	if got := Members([]byte(`[1,2]`), "a"); got[0] != nil {
		t.Errorf("an array has no members: %q", got[0])
	}
}

// MemberSpan finds a value by its path, nested, the last of a key given
// twice, and nothing where a key is missing or a value on the way is not
// an object.
func TestMemberSpan(t *testing.T) {
	obj := []byte(`{"a":1, "m" : {"role":"u", "content":[{"x":"}"}],"content":"last"},"s":"x"}`)
	for _, c := range []struct {
		path []string
		want string
		ok   bool
	}{
		{[]string{"a"}, "1", true},
		{[]string{"m", "role"}, `"u"`, true},
		{[]string{"m", "content"}, `"last"`, true},
		{[]string{"s", "x"}, "", false},
		{[]string{"m", "missing"}, "", false},
		{[]string{"missing"}, "", false},
		{nil, "", false},
	} {
		s, e, ok := MemberSpan(obj, c.path...)
		if ok != c.ok || (ok && string(obj[s:e]) != c.want) {
			t.Errorf("%v: %d..%d %v, want %q %v", c.path, s, e, ok, c.want, c.ok)
		}
	}
}
