package storetest

import (
	"slices"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// testExactlyOnce covers the retry rule (DESIGN.md, "Appending"): a
// message whose own "id" the branch already has, its ancestry up to the
// fork point included, is acknowledged and not stored again.
func testExactlyOnce(t *testing.T, open Opener) {
	cases(t, open, map[string]func(*testing.T, backing.Store){
		"Retry":          retrySameID,
		"RetryInBatch":   retryPartOfBatch,
		"Ancestry":       retryInAncestry,
		"AfterForkPoint": retryAfterForkPoint,
		"Siblings":       retrySiblings,
	})
}

func retrySameID(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	m1 := withID("user", "hello", "m1")
	for range 3 {
		appendOK(t, s, "", m1)
	}
	// Same id, other bytes: still the message the branch has.
	appendOK(t, s, "", withID("user", "hello again", "m1"))
	if got := contents(t, s, ""); !slices.Equal(got, []string{"hello"}) {
		t.Errorf("after retries: %q, want [hello]", got)
	}
	// Messages without an id of their own are never taken for retries.
	appendOK(t, s, "", msg("user", "same"), msg("user", "same"))
	if got := contents(t, s, ""); !slices.Equal(got, []string{"hello", "same", "same"}) {
		t.Errorf("messages = %q", got)
	}
}

// retryPartOfBatch: a retried batch stores only what it adds, in order.
func retryPartOfBatch(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", withID("user", "a", "a"), withID("assistant", "b", "b"))
	appendOK(t, s, "", withID("user", "a", "a"), withID("assistant", "b", "b"), withID("user", "c", "c"), msg("assistant", "d"))
	if got := contents(t, s, ""); !slices.Equal(got, []string{"a", "b", "c", "d"}) {
		t.Errorf("messages = %q, want [a b c d]", got)
	}
}

// retryInAncestry: an id the branch inherits, before its fork point, is
// one it has.
func retryInAncestry(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", withID("user", "q", "p1"), withID("assistant", "a", "p2"))
	x := fork(t, s, "", backing.Head, "x")
	appendOK(t, s, x.ID, withID("user", "q", "p1"), withID("user", "own", "x1"))
	if got := contents(t, s, x.ID); !slices.Equal(got, []string{"q", "a", "own"}) {
		t.Errorf("x = %q, want [q a own]", got)
	}
	// Two levels up.
	y := fork(t, s, x.ID, backing.Head, "y")
	appendOK(t, s, y.ID, withID("assistant", "a", "p2"), withID("user", "own", "x1"), withID("user", "y", "y1"))
	if got := contents(t, s, y.ID); !slices.Equal(got, []string{"q", "a", "own", "y"}) {
		t.Errorf("y = %q, want [q a own y]", got)
	}
	// A fork at a message keeps the ids before it, not after it.
	z := fork(t, s, "", 1, "z")
	appendOK(t, s, z.ID, withID("user", "q", "p1"), withID("assistant", "a", "p2"))
	if got := contents(t, s, z.ID); !slices.Equal(got, []string{"q", "a"}) {
		t.Errorf("z = %q, want [q a]", got)
	}
}

// retryAfterForkPoint: what the parent has past the fork point is not the
// fork's, so its ids are new to the fork.
func retryAfterForkPoint(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", withID("user", "q", "p1"))
	x := fork(t, s, "", backing.Head, "x")
	e := fork(t, s, "", 0, "e")
	appendOK(t, s, "", withID("assistant", "late", "p2"))
	appendOK(t, s, x.ID, withID("assistant", "late", "p2"))
	if got := contents(t, s, x.ID); !slices.Equal(got, []string{"q", "late"}) {
		t.Errorf("x = %q, want [q late]", got)
	}
	appendOK(t, s, e.ID, withID("user", "q", "p1"))
	if got := contents(t, s, e.ID); !slices.Equal(got, []string{"q"}) {
		t.Errorf("e = %q, want [q]", got)
	}
	// And the parent does not see its children's ids.
	appendOK(t, s, x.ID, withID("user", "x only", "x1"))
	appendOK(t, s, "", withID("user", "x only", "x1"))
	if got := contents(t, s, ""); !slices.Equal(got, []string{"q", "late", "x only"}) {
		t.Errorf("main = %q", got)
	}
}

// retrySiblings: a sibling branch's ids are not the branch's.
func retrySiblings(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	x := fork(t, s, "", backing.Head, "x")
	y := fork(t, s, "", backing.Head, "y")
	appendOK(t, s, x.ID, withID("user", "q", "same"))
	appendOK(t, s, y.ID, withID("user", "q", "same"))
	for _, id := range []string{x.ID, y.ID} {
		if got := contents(t, s, id); !slices.Equal(got, []string{"q"}) {
			t.Errorf("branch %s = %q", id, got)
		}
	}
}
