package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// testForks covers Fork: at the head, at a turn, at a message, at 0; what
// a fork reads (its parent's first messages, then its own) and what it
// does not (the parent's later ones); its names and errors.
func testForks(t *testing.T, open Opener) {
	cases(t, open, map[string]func(*testing.T, backing.Store){
		"Head":       forkHead,
		"Turn":       forkTurn,
		"Message":    forkMessage,
		"Zero":       forkZero,
		"OfFork":     forkOfFork,
		"InAncestry": forkInAncestry,
		"Names":      forkNames,
		"Range":      forkRange,
		"Empty":      forkEmpty,
	})
}

func forkHead(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", qa("", 2)...)
	main := defaultBranch(t, s)
	x := fork(t, s, main.ID, backing.Head, "x")
	if x.Name != "x" || x.Parent != main.ID || x.IsDefault() || x.ID == main.ID || x.Created.IsZero() {
		t.Errorf("Fork at the head = %+v; want x, parent %s", x, main.ID)
	}
	appendOK(t, s, "", qa("main-", 1)...)
	appendOK(t, s, x.ID, qa("x-", 1)...)
	if got, want := contents(t, s, x.ID), []string{"q1", "a1", "q2", "a2", "x-q1", "x-a1"}; !slices.Equal(got, want) {
		t.Errorf("x = %q, want %q", got, want)
	}
	if got, want := contents(t, s, ""), []string{"q1", "a1", "q2", "a2", "main-q1", "main-a1"}; !slices.Equal(got, want) {
		t.Errorf("main = %q, want %q", got, want)
	}
	v := view(t, s, x.ID)
	if v.Inherited() != 4 || v.Len() != 6 || v.Branch().ID != x.ID {
		t.Errorf("x's view: %d messages, %d inherited, branch %+v; want 6, 4, x", v.Len(), v.Inherited(), v.Branch())
	}
	// The parent's view is its own.
	if v := view(t, s, ""); v.Inherited() != 0 || v.Len() != 6 {
		t.Errorf("main's view: %d messages, %d inherited", v.Len(), v.Inherited())
	}
	// "" forks the default branch.
	y := fork(t, s, "", backing.Head, "y")
	if y.Parent != main.ID || view(t, s, y.ID).Len() != 6 {
		t.Errorf("Fork(\"\") = %+v", y)
	}
}

// forkTurn: a fork after turn k, as turns/<k>/fork/ makes it.
func forkTurn(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", qa("", 4)...)
	v := view(t, s, "")
	_, end, err := v.TurnRange(2)
	if err != nil {
		t.Fatal(err)
	}
	f := fork(t, s, "", end, "t2")
	appendOK(t, s, f.ID, qa("t2-", 1)...)
	if got, want := contents(t, s, f.ID), []string{"q1", "a1", "q2", "a2", "t2-q1", "t2-a1"}; !slices.Equal(got, want) {
		t.Errorf("t2 = %q, want %q", got, want)
	}
	fv := view(t, s, f.ID)
	if fv.Turns() != 3 || fv.Inherited() != end {
		t.Errorf("t2: %d turns, %d inherited; want 3, %d", fv.Turns(), fv.Inherited(), end)
	}
	if from, _, err := fv.TurnRange(3); err != nil || from != end {
		t.Errorf("t2's turn 3 starts at %d (%v), want %d", from, err, end)
	}
	// The parent is as it was.
	if got := view(t, s, "").Len(); got != 8 {
		t.Errorf("main has %d messages, want 8", got)
	}
}

// forkMessage: a fork after the k-th visible message (--at-message), the
// events before it kept, those after it not.
func forkMessage(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", event("e0"), msg("user", "q1"), event("e1"), msg("assistant", "a1"), event("e2"), msg("user", "q2"))
	v := view(t, s, "")
	at, err := v.AfterVisible(2)
	if err != nil || at != 4 {
		t.Fatalf("AfterVisible(2) = %d, %v; want 4", at, err)
	}
	f := fork(t, s, "", at, "m2")
	fv := view(t, s, f.ID)
	if fv.Len() != 4 || fv.Visible() != 2 || fv.Events() != 2 || fv.Inherited() != 4 {
		t.Errorf("fork after 2 visible messages: %d messages, %d visible, %d events, %d inherited; want 4, 2, 2, 4",
			fv.Len(), fv.Visible(), fv.Events(), fv.Inherited())
	}
	if got, want := contentsOf(t, readAll(t, fv)), []string{"e0", "q1", "e1", "a1"}; !slices.Equal(got, want) {
		t.Errorf("fork = %q, want %q", got, want)
	}
	appendOK(t, s, f.ID, event("own"))
	if fv := view(t, s, f.ID); fv.Len() != 5 || fv.Events() != 3 || fv.Visible() != 2 {
		t.Errorf("fork plus an event: %d messages, %d events, %d visible", fv.Len(), fv.Events(), fv.Visible())
	}
}

func forkZero(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", qa("", 2)...)
	z := fork(t, s, "", 0, "zero")
	v := view(t, s, z.ID)
	if v.Len() != 0 || v.Inherited() != 0 || v.Turns() != 0 {
		t.Errorf("fork at 0: %d messages, %d inherited, %d turns", v.Len(), v.Inherited(), v.Turns())
	}
	appendOK(t, s, z.ID, msg("user", "fresh"))
	if got := contents(t, s, z.ID); !slices.Equal(got, []string{"fresh"}) {
		t.Errorf("fork at 0 = %q", got)
	}
	if got := view(t, s, "").Len(); got != 4 {
		t.Errorf("main has %d messages", got)
	}
}

// forkOfFork: three levels, each reading its ancestry as of its fork.
func forkOfFork(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", qa("m", 1)...)
	b := fork(t, s, "", backing.Head, "b")
	appendOK(t, s, b.ID, qa("b", 1)...)
	c := fork(t, s, b.ID, backing.Head, "c")
	if c.Parent != b.ID {
		t.Errorf("c's parent = %s, want b %s", c.Parent, b.ID)
	}
	appendOK(t, s, c.ID, qa("c", 1)...)
	appendOK(t, s, "", qa("M", 1)...)
	appendOK(t, s, b.ID, qa("B", 1)...)
	if got, want := contents(t, s, c.ID), []string{"mq1", "ma1", "bq1", "ba1", "cq1", "ca1"}; !slices.Equal(got, want) {
		t.Errorf("c = %q, want %q", got, want)
	}
	if got, want := contents(t, s, b.ID), []string{"mq1", "ma1", "bq1", "ba1", "Bq1", "Ba1"}; !slices.Equal(got, want) {
		t.Errorf("b = %q, want %q", got, want)
	}
	if got, want := contents(t, s, ""), []string{"mq1", "ma1", "Mq1", "Ma1"}; !slices.Equal(got, want) {
		t.Errorf("main = %q, want %q", got, want)
	}
	if v := view(t, s, c.ID); v.Inherited() != 4 {
		t.Errorf("c inherits %d messages, want 4", v.Inherited())
	}
	// Forks of a fork at a point inside its own messages, and inside its
	// parent's part.
	d := fork(t, s, c.ID, 5, "d")
	if got, want := contents(t, s, d.ID), []string{"mq1", "ma1", "bq1", "ba1", "cq1"}; !slices.Equal(got, want) {
		t.Errorf("d = %q, want %q", got, want)
	}
	if v := view(t, s, d.ID); v.Inherited() != 5 {
		t.Errorf("d inherits %d, want 5", v.Inherited())
	}
	e := fork(t, s, c.ID, 3, "e")
	if got, want := contents(t, s, e.ID), []string{"mq1", "ma1", "bq1"}; !slices.Equal(got, want) {
		t.Errorf("e = %q, want %q", got, want)
	}
	appendOK(t, s, e.ID, msg("user", "e"))
	if got, want := contents(t, s, e.ID), []string{"mq1", "ma1", "bq1", "e"}; !slices.Equal(got, want) {
		t.Errorf("e = %q, want %q", got, want)
	}
	if v := view(t, s, e.ID); v.Inherited() != 3 {
		t.Errorf("e inherits %d, want 3", v.Inherited())
	}
}

// forkInAncestry: a fork of a branch at a point before that branch's own
// messages reads what its ancestors had there.
func forkInAncestry(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", qa("", 2)...)
	x := fork(t, s, "", backing.Head, "x")
	appendOK(t, s, x.ID, msg("user", "x"))
	appendOK(t, s, "", msg("user", "main later"))
	for at, want := range map[int][]string{0: {}, 1: {"q1"}, 4: {"q1", "a1", "q2", "a2"}, 5: {"q1", "a1", "q2", "a2", "x"}} {
		f := fork(t, s, x.ID, at, fmt.Sprint("at", at))
		if got := contents(t, s, f.ID); !slices.Equal(got, want) {
			t.Errorf("fork of x at %d = %q, want %q", at, got, want)
		}
		if v := view(t, s, f.ID); v.Inherited() != at {
			t.Errorf("fork of x at %d inherits %d", at, v.Inherited())
		}
	}
}

func forkNames(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", qa("", 1)...)
	x := fork(t, s, "", backing.Head, "x")
	_, err := s.Fork("", backing.Head, "x")
	wantErr(t, "fork onto an existing name", err, backing.ErrExist)
	_, err = s.Fork(x.ID, 0, "x")
	wantErr(t, "fork onto its own parent's name", err, backing.ErrExist)
	_, err = s.Fork("", backing.Head, backing.DefaultBranchName)
	wantErr(t, "fork onto the default branch's name", err, backing.ErrExist)
	for _, bad := range []string{"", "a/b", ".x", "..", "nul\x00", "ctl\n", "bad\xff"} {
		_, err := s.Fork("", backing.Head, bad)
		wantErr(t, "fork named "+strings.ToValidUTF8(bad, "?"), err, backing.ErrBadName)
	}
	_, err = s.Fork("", backing.Head, strings.Repeat("n", backing.MaxNameLen+1))
	wantErr(t, "fork with a name too long", err, backing.ErrNameTooLong)
	for _, id := range []string{"01a00000-0000-7000-8000-00000000dead", "x", "main", "../x"} {
		_, err := s.Fork(id, backing.Head, "new")
		wantErr(t, "fork of branch id "+id, err, backing.ErrNotFound)
	}
	if bs, _ := s.Branches(); len(bs) != 2 {
		t.Errorf("refused forks left branches: %+v", bs)
	}
	// Names that are session-reserved or long are fine for a branch.
	for _, good := range []string{"trash", "archive", "with space", strings.Repeat("n", backing.MaxNameLen)} {
		if _, err := s.Fork("", backing.Head, good); err != nil {
			t.Errorf("fork named %q: %v", good, err)
		}
	}
}

// forkRange: a fork point past the end, or negative but Head, is invalid.
func forkRange(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", qa("", 2)...)
	for _, at := range []int{5, 99, -2} {
		_, err := s.Fork("", at, "bad")
		wantErr(t, fmt.Sprint("fork at ", at), err, backing.ErrInvalid)
	}
	fork(t, s, "", 4, "end")
	if bs, _ := s.Branches(); len(bs) != 2 {
		t.Errorf("Branches = %+v", bs)
	}
}

// forkEmpty: an empty branch forks at the head and at 0.
func forkEmpty(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	a := fork(t, s, "", backing.Head, "a")
	b := fork(t, s, a.ID, 0, "b")
	for _, id := range []string{a.ID, b.ID} {
		if v := view(t, s, id); v.Len() != 0 || v.Inherited() != 0 {
			t.Errorf("fork of an empty branch: %d messages, %d inherited", v.Len(), v.Inherited())
		}
	}
	appendOK(t, s, "", msg("user", "main"))
	if v := view(t, s, b.ID); v.Len() != 0 {
		t.Errorf("b sees main's later message")
	}
}
