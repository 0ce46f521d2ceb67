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
