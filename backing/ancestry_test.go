package backing_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// forkTree is a session whose branches exercise every shape of ancestry:
//
//	main   m1 m2 m3 m4 m5 m6
//	x      forked from main after 3, then x1 x2
//	xx     forked from x at its head (a fork of a fork), then xx1
//	w      forked from x after 2 (inside main's part), then w1
//	y      forked from main after 5 (a sibling of x), then y1
//	z      forked from main at 0, then z1 (nothing shared)
func forkTree(t *testing.T) (backing.Session, map[string]string) {
	t.Helper()
	s := session(t, openStore(t), "tree", backing.Meta{}, time.Now(), "m1", "m2", "m3", "m4", "m5")
	ids := map[string]string{"main": branchID(t, s, "")}
	fork := func(name, from string, at int, own ...string) {
		t.Helper()
		b, err := s.Fork(ids[from], at, name)
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = b.ID
		appendTexts(t, s, b.ID, own...)
	}
	fork("x", "main", 3, "x1", "x2")
	fork("xx", "x", backing.Head, "xx1")
	fork("w", "x", 2, "w1")
	fork("y", "main", 5, "y1")
	fork("z", "main", 0, "z1")
	appendTexts(t, s, ids["main"], "m6") // main moves on after the forks
	return s, ids
}

func TestCommonAncestor(t *testing.T) {
	s, ids := forkTree(t)
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"x", "main", 3},  // a branch and its own parent
		{"main", "x", 3},  // either way round
		{"xx", "main", 3}, // a fork of a fork and the root
		{"xx", "x", 5},    // a fork at the head keeps all of its parent
		{"x", "y", 3},     // siblings: the earlier fork point
		{"xx", "y", 3},    // cousins
		{"w", "xx", 2},    // a fork inside the parent's inherited part
		{"y", "main", 5},  // main's later messages are not shared
		{"z", "x", 0},     // forked at 0: nothing shared
		{"x", "x", 5},     // a branch shares all of itself
	} {
		got, err := backing.CommonAncestor(s, ids[c.a], ids[c.b])
		if err != nil || got != c.want {
			t.Errorf("CommonAncestor(%s, %s) = %d, %v; want %d", c.a, c.b, got, err, c.want)
		}
	}
	// Every message is distinct, so for every pair the shared history is
	// exactly the prefix the two views have equal.
	for a := range ids {
		for b := range ids {
			got, err := backing.CommonAncestor(s, ids[a], ids[b])
			if want := equalPrefix(t, s, ids[a], ids[b]); err != nil || got != want {
				t.Errorf("CommonAncestor(%s, %s) = %d, %v; the views share %d", a, b, got, err, want)
			}
		}
	}
	if _, err := backing.CommonAncestor(s, ids["x"], "no-such-branch"); err == nil {
		t.Error("CommonAncestor of a missing branch: no error")
	}
}

// equalPrefix is how many leading messages the views of a and b have equal.
func equalPrefix(t *testing.T, s backing.Session, a, b string) int {
	t.Helper()
	ra, rb := raws(t, s, a), raws(t, s, b)
	n := 0
	for n < len(ra) && n < len(rb) && bytes.Equal(ra[n], rb[n]) {
		n++
	}
	return n
}

// raws is every stored line of branch id's view, ancestry resolved.
func raws(t *testing.T, s backing.Session, id string) [][]byte {
	t.Helper()
	v, err := s.ViewID(id)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := v.Read(0, v.Len())
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]byte, len(msgs))
	for i, m := range msgs {
		out[i] = m.Raw
	}
	return out
}

func branchID(t *testing.T, s backing.Session, name string) string {
	t.Helper()
	b, err := s.Branch(name)
	if err != nil {
		t.Fatal(err)
	}
	return b.ID
}

func appendTexts(t *testing.T, s backing.Session, id string, texts ...string) {
	t.Helper()
	if len(texts) == 0 {
		return
	}
	raw := make([][]byte, len(texts))
	for i, c := range texts {
		raw[i] = fmt.Appendf(nil, `{"role":"user","content":%q}`, c)
	}
	if err := s.AppendID(id, raw); err != nil {
		t.Fatal(err)
	}
}
