package storetest

import (
	"slices"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// testBranches covers finding, listing, renaming and deleting branches.
func testBranches(t *testing.T, open Opener) {
	cases(t, open, map[string]func(*testing.T, backing.Store){
		"Default":       branchDefault,
		"List":          branchList,
		"Find":          branchFind,
		"Rename":        branchRename,
		"RenameDefault": branchRenameDefault,
		"RenameRefused": branchRenameRefused,
		"Delete":        branchDelete,
		"DeleteRefused": branchDeleteRefused,
	})
}

func sameBranch(a, b backing.Branch) bool {
	return a.ID == b.ID && a.Name == b.Name && a.Parent == b.Parent
}

// branchDefault: "" finds the default branch, by name and by id.
func branchDefault(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	def := defaultBranch(t, s)
	if !def.IsDefault() || def.Name != backing.DefaultBranchName || def.ID == "" || def.Created.IsZero() {
		t.Errorf("Branch(\"\") = %+v", def)
	}
	for what, find := range map[string]func() (backing.Branch, error){
		"Branch(main)":     func() (backing.Branch, error) { return s.Branch(backing.DefaultBranchName) },
		"BranchByID(\"\")": func() (backing.Branch, error) { return s.BranchByID("") },
		"BranchByID(id)":   func() (backing.Branch, error) { return s.BranchByID(def.ID) },
	} {
		if b, err := find(); err != nil || !sameBranch(b, def) {
			t.Errorf("%s = %+v, %v; want %+v", what, b, err, def)
		}
	}
	if v := view(t, s, ""); v.Branch().ID != def.ID {
		t.Errorf("ViewID(\"\") shows branch %+v, want the default", v.Branch())
	}
	if bad, err := s.BadBranches(); err != nil || len(bad) != 0 {
		t.Errorf("BadBranches of a new session = %+v, %v", bad, err)
	}
}

// branchList: the default branch first, then every other, each once, by
// name (SortBranches): the order is the same whatever the engine.
func branchList(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", qa("", 1)...)
	made := map[string]backing.Branch{}
	for _, n := range []string{"zeta", "0first", "alpha", "Main"} {
		made[n] = fork(t, s, "", backing.Head, n)
	}
	made["child"] = fork(t, s, made["alpha"].ID, 1, "child")
	bs, err := s.Branches()
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 6 || !bs[0].IsDefault() || bs[0].Name != backing.DefaultBranchName {
		t.Fatalf("Branches = %+v, want 6, the default first", bs)
	}
	var names []string
	for _, b := range bs {
		names = append(names, b.Name)
	}
	if want := []string{"main", "0first", "Main", "alpha", "child", "zeta"}; !slices.Equal(names, want) {
		t.Errorf("Branches lists %q, want %q", names, want)
	}
	ids := map[string]bool{}
	for _, b := range bs[1:] {
		if b.IsDefault() {
			t.Errorf("a second default branch: %+v", b)
		}
		if want, ok := made[b.Name]; !ok || !sameBranch(b, want) {
			t.Errorf("listed %+v, made %+v", b, want)
		}
		if ids[b.ID] {
			t.Errorf("branch id %s listed twice", b.ID)
		}
		ids[b.ID] = true
	}
	if bad, err := s.BadBranches(); err != nil || len(bad) != 0 {
		t.Errorf("BadBranches = %+v, %v", bad, err)
	}
}

func branchFind(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	x := fork(t, s, "", backing.Head, "x")
	wantUUIDv7(t, "branch", x.ID)
	if b, err := s.Branch("x"); err != nil || !sameBranch(b, x) {
		t.Errorf("Branch(x) = %+v, %v; want %+v", b, err, x)
	}
	if b, err := s.BranchByID(x.ID); err != nil || !sameBranch(b, x) {
		t.Errorf("BranchByID = %+v, %v; want %+v", b, err, x)
	}
	for _, name := range []string{"y", "X", "a/b", x.ID} {
		_, err := s.Branch(name)
		wantErr(t, "Branch("+name+")", err, backing.ErrNotFound)
	}
	for _, id := range []string{"01a00000-0000-7000-8000-00000000dead", "x", "main", "../x", s.ID()} {
		_, err := s.BranchByID(id)
		wantErr(t, "BranchByID("+id+")", err, backing.ErrNotFound)
		_, err = s.ViewID(id)
		wantErr(t, "ViewID("+id+")", err, backing.ErrNotFound)
	}
}

// branchRename: a rename changes the name alone; whoever holds the id
// keeps the branch, children included.
func branchRename(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", qa("", 1)...)
	x := fork(t, s, "", backing.Head, "x")
	appendOK(t, s, x.ID, msg("user", "on x"))
	y := fork(t, s, x.ID, backing.Head, "y")
	if err := s.RenameBranch(x.ID, "x2"); err != nil {
		t.Fatal(err)
	}
	_, err := s.Branch("x")
	wantErr(t, "the old name after a rename", err, backing.ErrNotFound)
	b, err := s.Branch("x2")
	if err != nil || b.ID != x.ID || b.Parent != x.Parent {
		t.Errorf("Branch(x2) = %+v, %v; want id %s", b, err, x.ID)
	}
	if b, _ := s.BranchByID(x.ID); b.Name != "x2" {
		t.Errorf("BranchByID after rename: name %q", b.Name)
	}
	if got := contents(t, s, y.ID); !slices.Equal(got, []string{"q1", "a1", "on x"}) {
		t.Errorf("the child after its parent's rename = %q", got)
	}
	appendOK(t, s, x.ID, msg("user", "by id after rename"))
	if got := contents(t, s, x.ID); len(got) != 4 {
		t.Errorf("x2 = %q", got)
	}
	// Renamed back, and the old name can be used by a new branch.
	if err := s.RenameBranch(x.ID, "x"); err != nil {
		t.Fatal(err)
	}
	if err := s.RenameBranch(y.ID, "x2"); err != nil {
		t.Errorf("rename to a name given up: %v", err)
	}
	fork(t, s, "", 0, "y")
}

// branchRenameDefault: the contract does not keep the default branch from
// being renamed; if the engine allows it, the default stays the default.
func branchRenameDefault(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", qa("", 1)...)
	def := defaultBranch(t, s)
	err := s.RenameBranch(def.ID, "trunk")
	if err != nil {
		t.Logf("the engine keeps the default branch's name: %v", err)
		if b := defaultBranch(t, s); b.Name != backing.DefaultBranchName {
			t.Errorf("a refused rename renamed the default branch to %q", b.Name)
		}
		return
	}
	b := defaultBranch(t, s)
	if b.ID != def.ID || b.Name != "trunk" || !b.IsDefault() {
		t.Errorf("default branch after rename = %+v", b)
	}
	if got, err := s.Branch("trunk"); err != nil || got.ID != def.ID {
		t.Errorf("Branch(trunk) = %+v, %v", got, err)
	}
	_, err = s.Branch(backing.DefaultBranchName)
	wantErr(t, "Branch(main) after its rename", err, backing.ErrNotFound)
	if bs, _ := s.Branches(); len(bs) != 1 || bs[0].ID != def.ID {
		t.Errorf("Branches = %+v", bs)
	}
	if got := contents(t, s, ""); len(got) != 2 {
		t.Errorf("messages after renaming the default branch: %q", got)
	}
	// A branch may now take the name the default had.
	fork(t, s, "", backing.Head, backing.DefaultBranchName)
	if b := defaultBranch(t, s); b.ID != def.ID {
		t.Errorf("the default branch after a fork named %q = %+v", backing.DefaultBranchName, b)
	}
}

func branchRenameRefused(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	x := fork(t, s, "", backing.Head, "x")
	fork(t, s, "", backing.Head, "y")
	wantErr(t, "rename over another branch", s.RenameBranch(x.ID, "y"), backing.ErrExist)
	wantErr(t, "rename over the default branch", s.RenameBranch(x.ID, backing.DefaultBranchName), backing.ErrExist)
	for _, bad := range []string{"", "a/b", ".x", "nul\x00", strings.Repeat("b", backing.MaxNameLen+1)} {
		wantErr(t, "rename to a bad name", s.RenameBranch(x.ID, bad), backing.ErrBadName)
	}
	wantErr(t, "rename to a name too long", s.RenameBranch(x.ID, strings.Repeat("b", backing.MaxNameLen+1)), backing.ErrNameTooLong)
	wantErr(t, "rename of no branch", s.RenameBranch("01a00000-0000-7000-8000-00000000dead", "w"), backing.ErrNotFound)
	if b, err := s.BranchByID(x.ID); err != nil || b.Name != "x" {
		t.Errorf("refused renames changed x: %+v, %v", b, err)
	}
	if bs, _ := s.Branches(); len(bs) != 3 {
		t.Errorf("Branches = %+v", bs)
	}
}

// branchDelete: a branch with no children goes, and its id is then not
// found by anything.
func branchDelete(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", qa("", 1)...)
	x := fork(t, s, "", backing.Head, "x")
	appendOK(t, s, x.ID, msg("user", "on x"))
	y := fork(t, s, x.ID, backing.Head, "y")
	wantErr(t, "delete of a branch with a child", s.DeleteBranch(x.ID), backing.ErrNotEmpty)
	if err := s.DeleteBranch(y.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteBranch(x.ID); err != nil {
		t.Fatalf("delete once its child is gone: %v", err)
	}
	bs, _ := s.Branches()
	if len(bs) != 1 || !bs[0].IsDefault() {
		t.Errorf("Branches after delete = %+v", bs)
	}
	for _, id := range []string{x.ID, y.ID} {
		_, err := s.BranchByID(id)
		wantErr(t, "BranchByID of a deleted branch", err, backing.ErrNotFound)
		_, err = s.ViewID(id)
		wantErr(t, "ViewID of a deleted branch", err, backing.ErrNotFound)
		wantErr(t, "AppendID to a deleted branch", s.AppendID(id, [][]byte{msg("user", "late")}), backing.ErrNotFound)
		_, err = s.Fork(id, backing.Head, "z")
		wantErr(t, "Fork of a deleted branch", err, backing.ErrNotFound)
		wantErr(t, "RenameBranch of a deleted branch", s.RenameBranch(id, "z"), backing.ErrNotFound)
		wantErr(t, "DeleteBranch twice", s.DeleteBranch(id), backing.ErrNotFound)
		wantErr(t, "Backdate of a deleted branch", s.Backdate(id, defaultBranch(t, s).Created), backing.ErrNotFound)
	}
	_, err := s.Branch("x")
	wantErr(t, "Branch(x) after delete", err, backing.ErrNotFound)
	// The name is free; the parent is untouched.
	x2 := fork(t, s, "", 1, "x")
	if x2.ID == x.ID {
		t.Error("a new branch got a deleted branch's id")
	}
	if got := contents(t, s, ""); !slices.Equal(got, []string{"q1", "a1"}) {
		t.Errorf("main after deletes = %q", got)
	}
	if bad, _ := s.BadBranches(); len(bad) != 0 {
		t.Errorf("BadBranches = %+v", bad)
	}
}

func branchDeleteRefused(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", qa("", 1)...)
	def := defaultBranch(t, s)
	wantErr(t, "delete of the default branch", s.DeleteBranch(def.ID), backing.ErrBusy)
	wantErr(t, "delete of no branch", s.DeleteBranch("01a00000-0000-7000-8000-00000000dead"), backing.ErrNotFound)
	x := fork(t, s, "", backing.Head, "x")
	appendOK(t, s, x.ID, msg("user", "x"))
	y := fork(t, s, x.ID, backing.Head, "y")
	wantErr(t, "delete of a parent", s.DeleteBranch(x.ID), backing.ErrNotEmpty)
	if got := contents(t, s, y.ID); len(got) != 3 {
		t.Errorf("y after a refused delete of its parent = %q", got)
	}
	if bs, _ := s.Branches(); len(bs) != 3 {
		t.Errorf("Branches after refused deletes = %+v", bs)
	}
	if got := contents(t, s, ""); len(got) != 2 {
		t.Errorf("main after a refused delete = %q", got)
	}
}
