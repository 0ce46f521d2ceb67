package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

func TestForkAtHead(t *testing.T) {
	s := newStore(t)
	seed(s, "a")
	if out := s.ok("fork", "a", "alt"); out != "alt\n" {
		t.Fatalf("fork printed %q", out)
	}
	s.ok("append", "--branch", "alt", "a", "a different path")
	s.ok("append", "a", "main goes on")
	alt := contents(s.messages("--branch", "alt", "a"))
	main := contents(s.messages("a"))
	if len(alt) != 8 || alt[7] != "a different path" || len(main) != 8 || main[7] != "main goes on" {
		t.Fatalf("alt %v\nmain %v", alt, main)
	}
	s.fails(1, `branch "alt": already exists`, "", "fork", "a", "alt")
	s.fails(1, "invalid name", "", "fork", "a", ".dot")
}

func TestForkAtTurnAndMessage(t *testing.T) {
	s := newStore(t)
	seed(s, "a")
	s.ok("fork", "--at", "1", "a", "t1")
	if got := contents(s.messages("--branch", "t1", "a")); strings.Join(got, "|") != "be brief|first question|first answer" {
		t.Fatalf("fork --at 1: %v", got)
	}
	s.ok("fork", "a", "m2", "--at-message", "2")
	if got := contents(s.messages("--branch", "m2", "a")); strings.Join(got, "|") != "be brief|first question" {
		t.Fatalf("fork --at-message 2: %v", got)
	}
	s.ok("fork", "--at-message", "0", "a", "empty")
	if got := s.messages("--branch", "empty", "a"); len(got) != 0 {
		t.Fatalf("fork --at-message 0: %v", got)
	}
	// --from: fork a fork.
	s.ok("append", "--branch", "t1", "a", "t1 only")
	s.ok("fork", "--from", "t1", "a", "t1b")
	if got := contents(s.messages("--branch", "t1b", "a")); len(got) != 4 || got[3] != "t1 only" {
		t.Fatalf("fork --from t1: %v", got)
	}
	s.fails(1, "turn 3: not found", "", "fork", "--at", "3", "a", "x")
	s.fails(1, "fork point 99", "", "fork", "--at-message", "99", "a", "x")
	s.fails(2, "not both", "", "fork", "--at", "1", "--at-message", "1", "a", "x")
	s.fails(1, `branch "nope": not found`, "", "fork", "--from", "nope", "a", "x")
}

func TestBranches(t *testing.T) {
	s := newStore(t)
	seed(s, "a")
	s.ok("fork", "--at", "1", "a", "t1")
	s.ok("append", "--branch", "t1", "a", "t1 only")
	s.ok("fork", "--from", "t1", "a", "t1b")
	s.ok("append", "a", "main goes on")

	out := s.ok("branches", "a")
	want := []string{
		`^  NAME +MESSAGES +PARENT +FORKED AT$`,
		`^\* main +8 +- +-$`,
		`^  t1 +4 +main +3$`,
		`^  t1b +4 +t1 +4$`,
	}
	rows := lines(out)
	if len(rows) != len(want) {
		t.Fatalf("branches:\n%s", out)
	}
	for i, re := range want {
		if !regexp.MustCompile(re).MatchString(rows[i]) {
			t.Fatalf("branches row %d %q does not match %s:\n%s", i, rows[i], re, out)
		}
	}

	var list []branchJSON
	if err := json.Unmarshal([]byte(s.ok("branches", "--json", "a")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 || !list[0].Default || list[0].ForkedAt != nil || list[1].Name != "t1" ||
		list[1].Parent != "main" || list[1].ParentID != list[0].ID || *list[1].ForkedAt != 3 || list[2].Messages != 4 {
		t.Fatalf("branches --json: %+v", list)
	}
}

// --tree draws what branches lists, each branch under its parent.
func TestBranchesTree(t *testing.T) {
	s := newStore(t)
	seed(s, "a")
	s.ok("fork", "--at", "1", "a", "t1")
	s.ok("append", "--branch", "t1", "a", "t1 only")
	s.ok("fork", "--from", "t1", "a", "t1b")
	s.ok("fork", "--at-message", "0", "a", "empty")
	s.ok("append", "a", "main goes on")
	want := "main: 8 messages\n" +
		"├─ empty: 0 messages, forked at 0\n" +
		"└─ t1: 4 messages, forked at 3\n" +
		"   └─ t1b: 4 messages, forked at 4\n"
	if out := s.ok("branches", "--tree", "a"); out != want {
		t.Fatalf("branches --tree:\n%s\nwant\n%s", out, want)
	}
	s.fails(2, "not both", "", "branches", "--tree", "--json", "a")
}

func TestBranchRenameAndRm(t *testing.T) {
	s := newStore(t)
	seed(s, "a")
	s.ok("fork", "a", "x")
	s.ok("append", "--branch", "x", "a", "on x")
	s.ok("fork", "--from", "x", "a", "y")

	if out := s.ok("branch", "rename", "a", "x", "x2"); out != "" {
		t.Fatalf("branch rename printed %q", out)
	}
	if got := contents(s.messages("--branch", "x2", "a")); len(got) != 8 || got[7] != "on x" {
		t.Fatalf("renamed branch: %v", got)
	}
	// The child still resolves through its renamed parent.
	if got := contents(s.messages("--branch", "y", "a")); len(got) != 8 {
		t.Fatalf("child of renamed branch: %v", got)
	}
	s.fails(1, `branch "x": not found`, "", "branch", "rename", "a", "x", "z")
	s.fails(1, `branch "y": already exists`, "", "branch", "rename", "a", "x2", "y")

	s.fails(1, "the default branch cannot be removed", "", "branch", "rm", "a", "main")
	s.fails(1, `branch "x2": branch has child branches: y`, "", "branch", "rm", "a", "x2")
	out := s.ok("branch", "rm", "a", "y")
	if !strings.Contains(out, `removed branch "y"`) {
		t.Fatalf("branch rm printed %q", out)
	}
	s.ok("branch", "rm", "a", "x2")
	rows := lines(s.ok("branches", "a"))
	if len(rows) != 2 || !strings.HasPrefix(rows[1], "* main") {
		t.Fatalf("branches after rm: %v", rows)
	}
	s.fails(1, `branch "y": not found`, "", "branch", "rm", "a", "y")
	// --store may come before the subcommand.
	s.ok("fork", "a", "z")
	r := runIn(t, "", "branch", "--store", s.dir, "rm", "a", "z")
	if r.code != 0 {
		t.Fatalf("branch --store DIR rm: %v", r)
	}
}
