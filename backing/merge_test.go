package backing_test

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// everyBranch is every message of every branch, by branch id.
func everyBranch(t *testing.T, s backing.Session) map[string][][]byte {
	t.Helper()
	list, err := s.Branches()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][][]byte{}
	for _, b := range list {
		out[b.ID] = raws(t, s, b.ID)
	}
	return out
}

// nothingLost fails unless every branch of before is still there, by id,
// with every message it had, in order, at the start of its history.
func nothingLost(t *testing.T, s backing.Session, before map[string][][]byte) {
	t.Helper()
	after := everyBranch(t, s)
	nb, na := 0, 0
	for id, msgs := range before {
		got, ok := after[id]
		if !ok {
			t.Errorf("branch %s is gone", id)
			continue
		}
		if len(got) < len(msgs) || !slices.EqualFunc(got[:len(msgs)], msgs, bytes.Equal) {
			t.Errorf("branch %s: %d messages before, %d after, or a different history", id, len(msgs), len(got))
		}
		nb += len(msgs)
	}
	for _, msgs := range after {
		na += len(msgs)
	}
	if na < nb {
		t.Errorf("%d messages in all branches before, %d after", nb, na)
	}
}

func texts(t *testing.T, s backing.Session, id string) string {
	t.Helper()
	var out []string
	for _, r := range raws(t, s, id) {
		_, c, _ := strings.Cut(string(r), `"content":"`)
		out = append(out, strings.TrimSuffix(c, `"}`))
	}
	return strings.Join(out, " ")
}

func merge(t *testing.T, s backing.Session, from, into, strategy string) backing.Merged {
	t.Helper()
	before := everyBranch(t, s)
	m, err := backing.Merge(s, from, into, strategy)
	if err != nil {
		t.Fatalf("merge %s: %v", strategy, err)
	}
	nothingLost(t, s, before)
	return m
}

func TestMergeAppend(t *testing.T) {
	s, ids := forkTree(t)
	m := merge(t, s, ids["x"], ids["main"], backing.MergeAppend)
	if got := texts(t, s, ids["main"]); got != "m1 m2 m3 m4 m5 m6 x1 x2" || m.Ancestor != 3 || m.Sent != 2 || m.Added != 2 {
		t.Fatalf("append x into main: main is %q, %+v", got, m)
	}
	// Again: x's messages carry their ids, which main now has, so the
	// store acknowledges them and stores nothing.
	if m := merge(t, s, ids["x"], ids["main"], backing.MergeAppend); m.Sent != 2 || m.Added != 0 {
		t.Fatalf("merging again: %+v", m)
	}
	// What x gains later merges alone.
	appendTexts(t, s, ids["x"], "x3")
	if m := merge(t, s, ids["x"], ids["main"], backing.MergeAppend); m.Added != 1 || texts(t, s, ids["main"]) != "m1 m2 m3 m4 m5 m6 x1 x2 x3" {
		t.Fatalf("merging x3: %+v, main %q", m, texts(t, s, ids["main"]))
	}
	// The other way round: the parent's messages after the fork point
	// come to the fork, main's copies of x's own ones acknowledged.
	merge(t, s, ids["main"], ids["x"], backing.MergeAppend)
	if got := texts(t, s, ids["x"]); got != "m1 m2 m3 x1 x2 x3 m4 m5 m6" {
		t.Fatalf("append main into x: x is %q", got)
	}
	// A fork of a fork into a cousin: the ancestor is found through x.
	if m := merge(t, s, ids["xx"], ids["y"], backing.MergeAppend); m.Ancestor != 3 || texts(t, s, ids["y"]) != "m1 m2 m3 m4 m5 y1 x1 x2 xx1" {
		t.Fatalf("append xx into y: %+v, y %q", m, texts(t, s, ids["y"]))
	}
}

func TestMergeReplace(t *testing.T) {
	s, ids := forkTree(t)
	child, err := s.Fork(ids["y"], backing.Head, "y-child")
	if err != nil {
		t.Fatal(err)
	}
	m := merge(t, s, ids["xx"], ids["y"], backing.MergeReplace)
	if m.Kept != "y-before-merge-1" || m.Ancestor != 3 || m.Sent != 3 || m.Added != 3 {
		t.Fatalf("replace y by xx: %+v", m)
	}
	y := branchID(t, s, "y")
	if y == ids["y"] || texts(t, s, y) != texts(t, s, ids["xx"]) {
		t.Fatalf("y is now %q, want xx's history %q", texts(t, s, y), texts(t, s, ids["xx"]))
	}
	// The old history keeps its id, under the kept name, with its child.
	if branchID(t, s, m.Kept) != ids["y"] || texts(t, s, ids["y"]) != "m1 m2 m3 m4 m5 y1" {
		t.Fatalf("y-before-merge-1 is %q", texts(t, s, branchID(t, s, m.Kept)))
	}
	if b, err := s.BranchByID(child.ID); err != nil || b.Parent != ids["y"] {
		t.Fatalf("y's child: %+v, %v", b, err)
	}
	// The next replace keeps the head under the next free number.
	if m := merge(t, s, ids["main"], y, backing.MergeReplace); m.Kept != "y-before-merge-2" || texts(t, s, branchID(t, s, "y")) != texts(t, s, ids["main"]) {
		t.Fatalf("second replace: %+v, y %q", m, texts(t, s, branchID(t, s, "y")))
	}
}

// The default branch is the root: a rename cannot move that, so its
// history cannot be replaced, only appended to.
func TestMergeReplaceDefault(t *testing.T) {
	s, ids := forkTree(t)
	before := everyBranch(t, s)
	_, err := backing.Merge(s, ids["x"], ids["main"], backing.MergeReplace)
	if !errors.Is(err, backing.ErrBusy) || !strings.Contains(err.Error(), "3 messages after the common ancestor") {
		t.Fatalf("replace into main: %v", err)
	}
	if after := everyBranch(t, s); len(after) != len(before) || texts(t, s, ids["main"]) != "m1 m2 m3 m4 m5 m6" {
		t.Fatalf("a refused replace changed the session: %d branches, main %q", len(after), texts(t, s, ids["main"]))
	}
	// A fork of main's head: main has nothing after the ancestor, and
	// replacing is appending; the head is kept all the same.
	f, err := s.Fork(ids["main"], backing.Head, "f")
	if err != nil {
		t.Fatal(err)
	}
	appendTexts(t, s, f.ID, "f1")
	// A failed append takes back the branch made to keep the head.
	if _, err := backing.Merge(&failing{Session: s, appends: 1}, f.ID, ids["main"], backing.MergeReplace); !errors.Is(err, errInjected) {
		t.Fatalf("replace into main, its append failing: %v", err)
	}
	if _, err := s.Branch("main-before-merge-1"); !errors.Is(err, backing.ErrNotFound) {
		t.Fatalf("a failed replace left its kept branch: %v", err)
	}
	m := merge(t, s, f.ID, ids["main"], backing.MergeReplace)
	if m.Kept != "main-before-merge-1" || texts(t, s, ids["main"]) != "m1 m2 m3 m4 m5 m6 f1" || texts(t, s, branchID(t, s, m.Kept)) != "m1 m2 m3 m4 m5 m6" {
		t.Fatalf("fast-forward replace of main: %+v, main %q", m, texts(t, s, ids["main"]))
	}
}

func TestMergeRefuses(t *testing.T) {
	s, ids := forkTree(t)
	for _, c := range []struct {
		from, into, strategy string
		want                 error
	}{
		{ids["x"], ids["x"], backing.MergeAppend, backing.ErrInvalid},
		{ids["x"], ids["y"], "squash", backing.ErrInvalid},
		{"no-such-id", ids["y"], backing.MergeAppend, backing.ErrNotFound},
		{ids["x"], "no-such-id", backing.MergeReplace, backing.ErrNotFound},
	} {
		if _, err := backing.Merge(s, c.from, c.into, c.strategy); !errors.Is(err, c.want) {
			t.Errorf("Merge(%s, %s, %s) = %v, want %v", c.from, c.into, c.strategy, err, c.want)
		}
	}
}

// failing is a session whose n-th call of one kind fails.
type failing struct {
	backing.Session
	appends, renames int // fail the call of this number (1-based); 0: never
}

var errInjected = errors.New("injected failure")

func (f *failing) AppendID(id string, msgs [][]byte) error {
	if f.appends--; f.appends == 0 {
		return errInjected
	}
	return f.Session.AppendID(id, msgs)
}

func (f *failing) RenameBranch(id, name string) error {
	if f.renames--; f.renames == 0 {
		return errInjected
	}
	return f.Session.RenameBranch(id, name)
}

// A replace that fails at any step leaves every name on the history it
// had, and loses nothing.
func TestMergeReplaceUndone(t *testing.T) {
	for _, f := range []failing{{appends: 1}, {renames: 1}, {renames: 2}} {
		s, ids := forkTree(t)
		before := everyBranch(t, s)
		f.Session = s
		if _, err := backing.Merge(&f, ids["x"], ids["y"], backing.MergeReplace); !errors.Is(err, errInjected) {
			t.Fatalf("%+v: %v", f, err)
		}
		nothingLost(t, s, before)
		list, err := s.Branches()
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != len(ids) || branchID(t, s, "y") != ids["y"] {
			t.Errorf("%+v: after the undo: %+v", f, list)
		}
	}
}
