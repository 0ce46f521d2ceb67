package filestore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

func TestForkAtHead(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "f")
	appendTurns(t, s, "", "", 2)
	if _, err := s.Fork("", backing.Head, "x"); err != nil {
		t.Fatal(err)
	}
	appendTurns(t, s, "", "main-", 1)
	appendTurns(t, s, "x", "x-", 1)
	if got, want := contents(t, s, "x"), []string{"q1", "a1", "q2", "a2", "x-q1", "x-a1"}; !equal(got, want) {
		t.Errorf("x = %v, want %v", got, want)
	}
	if got, want := contents(t, s, ""), []string{"q1", "a1", "q2", "a2", "main-q1", "main-a1"}; !equal(got, want) {
		t.Errorf("main = %v, want %v", got, want)
	}
	if _, err := s.Fork("", backing.Head, "x"); !errors.Is(err, backing.ErrExist) {
		t.Errorf("fork onto an existing name: %v", err)
	}
	if _, err := s.Fork("nope", backing.Head, "y"); !errors.Is(err, backing.ErrNotFound) {
		t.Errorf("fork of a missing branch: %v", err)
	}
	if _, err := s.Fork("", backing.Head, "a/b"); !errors.Is(err, backing.ErrBadName) {
		t.Errorf("fork with a bad name: %v", err)
	}
}

func TestForkAtTurn(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "f")
	appendTurns(t, s, "", "", 4)
	v, _ := s.View("")
	_, end, err := v.TurnRange(2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Fork("", end, "t2"); err != nil {
		t.Fatal(err)
	}
	appendTurns(t, s, "t2", "t2-", 1)
	if got, want := contents(t, s, "t2"), []string{"q1", "a1", "q2", "a2", "t2-q1", "t2-a1"}; !equal(got, want) {
		t.Errorf("t2 = %v, want %v", got, want)
	}
	v, _ = s.View("t2")
	if v.Turns() != 3 {
		t.Errorf("t2 has %d turns, want 3", v.Turns())
	}
	// Fork a fork at a point inside the grandparent's part: the new branch
	// hangs off main directly, so it depends on no more than it shows.
	b, err := s.Fork(idOf(t, s, "t2"), 2, "t1")
	if err != nil {
		t.Fatal(err)
	}
	main, _ := s.Branch("")
	if b.Parent != main.ID {
		t.Errorf("t1's parent = %s, want main %s", b.Parent, main.ID)
	}
	if got, want := contents(t, s, "t1"), []string{"q1", "a1"}; !equal(got, want) {
		t.Errorf("t1 = %v, want %v", got, want)
	}
	// Fork inside t2's own messages, then at 0 and out of range.
	if _, err := s.Fork(idOf(t, s, "t2"), 5, "t2b"); err != nil {
		t.Fatal(err)
	}
	if got, want := contents(t, s, "t2b"), []string{"q1", "a1", "q2", "a2", "t2-q1"}; !equal(got, want) {
		t.Errorf("t2b = %v, want %v", got, want)
	}
	if _, err := s.Fork("", 0, "empty"); err != nil {
		t.Fatal(err)
	}
	if got := contents(t, s, "empty"); len(got) != 0 {
		t.Errorf("fork at 0 = %v", got)
	}
	if _, err := s.Fork("", 99, "far"); !errors.Is(err, backing.ErrInvalid) {
		t.Errorf("fork past the end: %v", err)
	}
}

func TestAncestryThreeDeep(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "a")
	appendTurns(t, s, "", "m", 1)
	s.Fork("", backing.Head, "b")
	appendTurns(t, s, "b", "b", 1)
	s.Fork(idOf(t, s, "b"), backing.Head, "c")
	appendTurns(t, s, "c", "c", 1)
	appendTurns(t, s, "", "m", 1) // main grows; b and c do not see it
	appendTurns(t, s, "b", "B", 1)
	if got, want := contents(t, s, "c"), []string{"mq1", "ma1", "bq1", "ba1", "cq1", "ca1"}; !equal(got, want) {
		t.Errorf("c = %v, want %v", got, want)
	}
	if got, want := contents(t, s, "b"), []string{"mq1", "ma1", "bq1", "ba1", "Bq1", "Ba1"}; !equal(got, want) {
		t.Errorf("b = %v, want %v", got, want)
	}
	// A fresh process resolves the same.
	st2, _ := Open(st.Root(), Options{})
	s2 := concrete(st2.Session("a"))
	if got := contents(t, s2, "c"); len(got) != 6 {
		t.Errorf("fresh read of c = %v", got)
	}
}

func TestRenameAndDeleteBranch(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "r")
	appendTurns(t, s, "", "", 1)
	s.Fork("", backing.Head, "x")
	appendTurns(t, s, "x", "x", 1)
	s.Fork(idOf(t, s, "x"), backing.Head, "y")
	if err := s.RenameBranch(idOf(t, s, "x"), "y"); !errors.Is(err, backing.ErrExist) {
		t.Errorf("rename over existing: %v", err)
	}
	if err := s.RenameBranch(idOf(t, s, "x"), "x2"); err != nil {
		t.Fatal(err)
	}
	// The child follows its parent by id: untouched by the rename.
	if got := contents(t, s, "y"); !equal(got, []string{"q1", "a1", "xq1", "xa1"}) {
		t.Errorf("y after parent rename = %v", got)
	}
	if _, err := s.Branch("x"); !errors.Is(err, backing.ErrNotFound) {
		t.Errorf("old name still resolves: %v", err)
	}
	if err := s.DeleteBranch(idOf(t, s, "main")); !errors.Is(err, backing.ErrBusy) {
		t.Errorf("delete main: %v", err)
	}
	if err := s.DeleteBranch(idOf(t, s, "x2")); !errors.Is(err, backing.ErrNotEmpty) {
		t.Errorf("delete a parent: %v", err)
	}
	if err := s.DeleteBranch(idOf(t, s, "y")); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteBranch(idOf(t, s, "x2")); err != nil {
		t.Fatal(err)
	}
	bs, _ := s.Branches()
	if len(bs) != 1 || bs[0].Name != "main" {
		t.Errorf("branches after delete: %+v", bs)
	}
	// Deleted branches are kept in the session's trash folder.
	ents, _ := os.ReadDir(filepath.Join(s.Dir(), "trash"))
	if len(ents) != 4 {
		t.Errorf("session trash holds %d files, want 4 (2 branches, 2 logs)", len(ents))
	}
	if err := s.Append("y", [][]byte{msg("user", "late")}); !errors.Is(err, backing.ErrNotFound) {
		t.Errorf("append to a deleted branch: %v", err)
	}
}

func TestRenameMainKeepsDefault(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "r")
	appendTurns(t, s, "", "", 1)
	if err := s.RenameBranch(idOf(t, s, "main"), "trunk"); err != nil {
		t.Fatal(err)
	}
	b, err := s.Branch("")
	if err != nil || b.Name != "trunk" {
		t.Errorf("default branch after rename = %+v %v", b, err)
	}
}

func TestForkWritesLittle(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "small")
	appendTurns(t, s, "", "", 500)
	before := dirSize(t, st.Root())
	if _, err := s.Fork("", backing.Head, "x"); err != nil {
		t.Fatal(err)
	}
	if grew := dirSize(t, st.Root()) - before; grew >= 4096 {
		t.Errorf("a fork grew the store by %d bytes", grew)
	}
}

func dirSize(t *testing.T, root string) int64 {
	var n int64
	filepath.Walk(root, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// A holder of a branch id (an open append file of the mount) keeps
// appending to it across a rename, and hears ErrNotFound once it is gone.
func TestAppendIDFollowsRenames(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "a")
	b, err := s.Fork("", backing.Head, "x")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RenameBranch(idOf(t, s, "x"), "y"); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendID(b.ID, [][]byte{msg("user", "after rename")}); err != nil {
		t.Fatal(err)
	}
	if got := contents(t, s, "y"); !equal(got, []string{"after rename"}) {
		t.Errorf("y = %v", got)
	}
	if err := s.AppendID("", [][]byte{msg("user", "on main")}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteBranch(idOf(t, s, "y")); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendID(b.ID, [][]byte{msg("user", "late")}); !errors.Is(err, backing.ErrNotFound) {
		t.Errorf("append to a deleted branch by id: %v", err)
	}
}

// A removed branch's log index is let go: fork and remove cycles keep no
// index per branch they made.
func TestDeleteBranchReleasesIndex(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "s")
	appendTurns(t, s, "", "", 2)
	for i := range 50 {
		name := fmt.Sprintf("b%d", i)
		if _, err := s.Fork("", backing.Head, name); err != nil {
			t.Fatal(err)
		}
		if err := s.Append(name, [][]byte{msg("user", "x")}); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteBranch(idOf(t, s, name)); err != nil {
			t.Fatal(err)
		}
	}
	s.mu.Lock()
	n := len(s.logs)
	s.mu.Unlock()
	if n != 1 {
		t.Errorf("%d log indexes held after 50 fork and remove cycles, want 1 (main's)", n)
	}
}

// Branch operations take ids: a branch renamed after its id was looked up
// is still the one forked, renamed or deleted, and a new branch given its
// old name is not.
func TestBranchOpsByID(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "s")
	appendTurns(t, s, "", "", 2)
	x, err := s.Fork("", backing.Head, "x")
	if err != nil {
		t.Fatal(err)
	}
	appendTurns(t, s, "x", "x", 1)
	if err := s.RenameBranch(x.ID, "y"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Fork("", 1, "x"); err != nil { // a new, shorter x
		t.Fatal(err)
	}
	z, err := s.Fork(x.ID, backing.Head, "z")
	if err != nil {
		t.Fatal(err)
	}
	if z.Parent != x.ID {
		t.Errorf("z forks from %s, want the renamed branch %s", z.Parent, x.ID)
	}
	if got, want := contents(t, s, "z"), contents(t, s, "y"); !equal(got, want) {
		t.Errorf("z = %q, want y's %q", got, want)
	}
	if err := s.DeleteBranch(x.ID); !errors.Is(err, backing.ErrNotEmpty) || !strings.Contains(err.Error(), `branch "y"`) {
		t.Errorf("delete of z's parent: %v, want ErrNotEmpty naming y", err)
	}
	if err := s.RenameBranch("01a00000-0000-7000-8000-00000000dead", "w"); !errors.Is(err, backing.ErrNotFound) {
		t.Errorf("rename of no branch: %v", err)
	}
}
