package storetest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// viewCheckpoints: checkpoints (backing.Checkpoints, read from Typed) are
// where their lines are, a name marked again stands at its later mark,
// and a fork has those before its fork point with its own after them.
func viewCheckpoints(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	mark := func(name string) []byte {
		line, err := backing.CheckpointEvent(name)
		if err != nil {
			t.Fatal(err)
		}
		return line
	}
	appendOK(t, s, "", msg("user", "q1"), mark("a"), msg("assistant", "a1"), mark("b"), msg("user", "q2"), mark("a"))
	got := func(id string) []string {
		t.Helper()
		cs, err := backing.Checkpoints(view(t, s, id))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range cs {
			out = append(out, fmt.Sprintf("%s@%d", c.Name, c.Index))
		}
		return out
	}
	if g := got(""); !slices.Equal(g, []string{"b@3", "a@5"}) {
		t.Errorf("checkpoints = %v, want [b@3 a@5]", g)
	}
	x := fork(t, s, "", 4, "x")
	appendOK(t, s, x.ID, mark("c"))
	if g := got(x.ID); !slices.Equal(g, []string{"a@1", "b@3", "c@4"}) {
		t.Errorf("the fork's checkpoints = %v, want [a@1 b@3 c@4]", g)
	}
}
