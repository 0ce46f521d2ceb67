package storetest

import (
	"slices"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// testChecker covers the optional backing.Checker; an engine without it
// skips these.
func testChecker(t *testing.T, open Opener) {
	cases(t, open, map[string]func(*testing.T, backing.Store){
		"Empty":   fsckEmpty,
		"Healthy": fsckHealthy,
	})
}

func checker(t *testing.T, st backing.Store) backing.Checker {
	t.Helper()
	c, ok := st.(backing.Checker)
	if !ok {
		t.Skip("the engine has no Checker")
	}
	return c
}

func fsckEmpty(t *testing.T, st backing.Store) {
	rep, err := checker(t, st).Fsck(false)
	if err != nil || rep.Sessions != 0 || len(rep.Problems) != 0 {
		t.Errorf("Fsck of an empty store = %+v, %v", rep, err)
	}
}

// fsckHealthy: a store made through the contract alone, every kind of
// change in it, has nothing for fsck to report, and a repair run changes
// nothing.
func fsckHealthy(t *testing.T, st backing.Store) {
	c := checker(t, st)
	a := newSession(t, st, "a")
	appendOK(t, a, "", mixed...)
	x := fork(t, a, "", 4, "x")
	appendOK(t, a, x.ID, qa("x", 2)...)
	y := fork(t, a, x.ID, backing.Head, "y")
	if err := a.RenameBranch(y.ID, "y2"); err != nil {
		t.Fatal(err)
	}
	z := fork(t, a, "", 0, "z")
	if err := a.DeleteBranch(z.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := a.EditMeta([]byte(`{"id":"` + a.ID() + `","title":"edited","custom":1}`)); err != nil {
		t.Fatal(err)
	}
	appendOK(t, newSession(t, st, "b"), "", qa("", 1)...)
	if err := st.Archive("b"); err != nil {
		t.Fatal(err)
	}
	newSession(t, st, "c")
	if err := st.Trash("c"); err != nil {
		t.Fatal(err)
	}
	if err := st.Rename("a", "a2"); err != nil {
		t.Fatal(err)
	}
	before := contents(t, a, y.ID)
	for _, repair := range []bool{false, true} {
		rep, err := c.Fsck(repair)
		if err != nil {
			t.Fatalf("Fsck(%v): %v", repair, err)
		}
		if rep.Sessions != 3 || rep.Remaining() != 0 || len(rep.Problems) != 0 {
			t.Errorf("Fsck(%v) of a healthy store: %d sessions (want 3), %d remaining, problems %+v",
				repair, rep.Sessions, rep.Remaining(), rep.Problems)
		}
	}
	if got := contents(t, a, y.ID); !slices.Equal(got, before) {
		t.Errorf("fsck changed y: %q, was %q", got, before)
	}
}
