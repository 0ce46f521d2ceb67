package filestore

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// Half of a non-default branch's file: the damage stays with that branch
// and its descendants. The other branches list, read and take appends;
// BadBranches says what was left out and why; fsck reports the branch file
// and never takes its log for one of no branch, so --repair leaves it.
func TestDamagedBranchStaysWithIt(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "s")
	appendTurns(t, s, "", "", 2)
	for _, f := range [][2]string{{"", "x"}, {"", "y"}, {"x", "xc"}} {
		if _, err := s.Fork(idOf(t, s, f[0]), backing.Head, f[1]); err != nil {
			t.Fatal(err)
		}
	}
	appendTurns(t, s, "x", "x", 1)
	x, _ := s.Branch("x")
	file := s.branchFile(x.ID)
	data, _ := os.ReadFile(file)
	os.WriteFile(file, data[:len(data)/2], 0o600)
	log := s.logFile(x.ID)
	logBefore, _ := os.ReadFile(log)

	st2, _ := Open(st.Root(), Options{})
	s2 := concrete(st2.Session("s"))
	if got := branchNames(t, s2); strings.Join(got, " ") != "main xc y" {
		t.Errorf("branches = %v, want main xc y", got)
	}
	bad, err := s2.BadBranches()
	if err != nil || len(bad) != 1 || bad[0].ID != x.ID || !errors.Is(bad[0].Err, backing.ErrInvalid) {
		t.Errorf("bad branches = %+v, %v", bad, err)
	}
	for _, b := range []string{"", "y"} {
		if err := s2.Append(b, [][]byte{msg("user", "more")}); err != nil {
			t.Errorf("append to %q: %v", b, err)
		}
		if got := contents(t, s2, b); len(got) != 5 || got[4] != "more" {
			t.Errorf("%q reads %v", b, got)
		}
	}
	if _, err := s2.View("xc"); err == nil || !strings.Contains(err.Error(), "cannot be used") {
		t.Errorf("view of a descendant of the damaged branch: %v", err)
	}
	if _, err := s2.View("x"); !errors.Is(err, backing.ErrNotFound) { // its name is in the lost half
		t.Errorf("view of the damaged branch: %v", err)
	}

	rep, _ := st2.Fsck(false)
	if !hasProblemAt(rep, x.ID+".json", "branch file") || hasProblem(rep, "log of no branch") {
		t.Errorf("fsck = %+v", rep.Problems)
	}
	st2.Fsck(true)
	if after, err := os.ReadFile(log); err != nil || !bytes.Equal(after, logBefore) {
		t.Errorf("fsck --repair moved or changed the damaged branch's log: %v", err)
	}
}

// Branch files that parse but break a rule: each is left out of the list
// (the good branches still list) and fsck reports it; a fork point in the
// middle of a line of the parent's log is listed and reported. Before, all
// passed fsck, and a '/' in a name failed the mount's whole listing.
func TestBadBranchFiles(t *testing.T) {
	cases := []struct {
		name   string
		branch func(main, x backing.Branch) backing.Branch
		listed bool   // still in Branches()
		want   string // in fsck's report
	}{
		{"path in the name", func(main, x backing.Branch) backing.Branch { return backing.Branch{Name: "../../x", Parent: main.ID} }, false, "contains '/'"},
		{"slash in the name", func(main, x backing.Branch) backing.Branch { return backing.Branch{Name: "a/b", Parent: main.ID} }, false, "contains '/'"},
		{"empty name", func(main, x backing.Branch) backing.Branch { return backing.Branch{Name: "", Parent: main.ID} }, false, "empty"},
		{"newline in the name", func(main, x backing.Branch) backing.Branch { return backing.Branch{Name: "a\nb", Parent: main.ID} }, false, "control character"},
		{"leading dot", func(main, x backing.Branch) backing.Branch { return backing.Branch{Name: ".x", Parent: main.ID} }, false, "starts with '.'"},
		{"second default", func(main, x backing.Branch) backing.Branch { return backing.Branch{Name: "main2"} }, false, "a second default branch"},
		{"second main", func(main, x backing.Branch) backing.Branch { return backing.Branch{Name: "main", Parent: main.ID} }, false, `a second branch named "main"`},
		{"second x", func(main, x backing.Branch) backing.Branch { return backing.Branch{Name: "x", Parent: main.ID} }, false, `a second branch named "x"`},
		{"parent a path", func(main, x backing.Branch) backing.Branch { return backing.Branch{Name: "p", Parent: "../../x"} }, false, "not another branch's id"},
		{"negative fork point", func(main, x backing.Branch) backing.Branch {
			return backing.Branch{Name: "n", Parent: main.ID, ParentOffset: -5}
		}, false, "negative"},
		{"fork point mid-line", func(main, x backing.Branch) backing.Branch {
			return backing.Branch{Name: "m", Parent: main.ID, ParentOffset: 10}
		}, true, "in the middle of a line"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := openStore(t)
			s := newSession(t, st, "s")
			appendTurns(t, s, "", "", 1)
			x, err := s.Fork("", backing.Head, "x")
			if err != nil {
				t.Fatal(err)
			}
			main, _ := s.Branch("")
			b := tc.branch(main, x)
			b.ID, b.Created = "01a00000-0000-7000-8000-000000000001", time.Now().UTC()
			writeBranchFile(t, s, b)
			os.WriteFile(s.logFile(b.ID), []byte(`{"role":"user","content":"kept"}`+"\n"), 0o600)

			st2, _ := Open(st.Root(), Options{})
			s2 := concrete(st2.Session("s"))
			want := []string{"main", "x"}
			if tc.listed {
				want = append(want, b.Name)
				sort.Strings(want[1:])
			}
			if got := branchNames(t, s2); strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("branches = %q, want %q", got, want)
			}
			if got := contents(t, s2, ""); !equal(got, []string{"q1", "a1"}) {
				t.Errorf("main reads %v", got)
			}
			rep, _ := st2.Fsck(false)
			if !hasProblemAt(rep, b.ID+".json", tc.want) {
				t.Errorf("fsck does not report %q: %+v", tc.want, rep.Problems)
			}
			st2.Fsck(true)
			if data, _ := os.ReadFile(s.logFile(b.ID)); !strings.Contains(string(data), "kept") {
				t.Errorf("fsck --repair took the branch's log away")
			}
		})
	}
}

func writeBranchFile(t *testing.T, s *Session, b backing.Branch) {
	t.Helper()
	data, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.Dir(), "branches", b.ID+".json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func branchNames(t *testing.T, s *Session) []string {
	t.Helper()
	list, err := s.Branches()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range list {
		names = append(names, b.Name)
	}
	return names
}

// hasProblemAt reports whether fsck reported what about a path ending in
// file.
func hasProblemAt(rep backing.FsckReport, file, what string) bool {
	for _, p := range rep.Problems {
		if strings.HasSuffix(p.Path, file) && strings.Contains(p.What, what) {
			return true
		}
	}
	return false
}

// A left-out branch file's error says what is wrong with it, in a
// sentence that still matches ErrInvalid, and names no file: whoever
// shows it says which file it is, once. Errors a user sees read as
// sentences, not as "invalid: …" chains.
func TestBadBranchErrorsRead(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "s")
	appendTurns(t, s, "", "", 1)
	main, _ := s.Branch("")
	b := backing.Branch{ID: "01a00000-0000-7000-8000-000000000001", Name: "a/b", Parent: main.ID, Created: time.Now().UTC()}
	writeBranchFile(t, s, b)
	kid := backing.Branch{ID: "01a00000-0000-7000-8000-000000000002", Name: "kid", Parent: b.ID, Created: time.Now().UTC()}
	writeBranchFile(t, s, kid)
	s2 := reopen(t, st, "s")
	bad, err := s2.BadBranches()
	if err != nil || len(bad) != 1 {
		t.Fatalf("bad branches = %+v, %v", bad, err)
	}
	if got, want := bad[0].Err.Error(), `invalid name "a/b": contains '/' or NUL`; got != want || !errors.Is(bad[0].Err, backing.ErrInvalid) {
		t.Errorf("bad branch error = %q, want %q matching ErrInvalid", got, want)
	}
	_, err = s2.View("kid")
	if err == nil || strings.Count(err.Error(), b.ID+".json") != 1 || strings.Contains(err.Error(), "invalid: ") {
		t.Errorf("view of its child: %v", err)
	}
	v, _ := s2.View("")
	if _, err := v.AfterVisible(3); err == nil || err.Error() != `fork point 3: branch "main" has 2 messages` || !errors.Is(err, backing.ErrInvalid) {
		t.Errorf("AfterVisible past the end: %v", err)
	}
	file := filepath.Join(s.Dir(), "trash")
	os.WriteFile(file, nil, 0o600)
	if err := s2.DeleteBranch(kid.ID); err == nil || err.Error() != file+" is not a folder" || !errors.Is(err, backing.ErrInvalid) {
		t.Errorf("a file where the trash folder goes: %v", err)
	}
}
