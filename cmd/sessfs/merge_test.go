package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// allMessages is the message ids of every branch of session name, by
// branch id, as the CLI shows them.
func allMessages(s *store, name string) map[string][]string {
	s.t.Helper()
	var list []branchJSON
	if err := json.Unmarshal([]byte(s.ok("branches", "--json", name)), &list); err != nil {
		s.t.Fatal(err)
	}
	out := map[string][]string{}
	for _, b := range list {
		ids := []string{}
		for _, m := range s.messages("--branch", b.Name, name) {
			id, _ := m["id"].(string)
			ids = append(ids, id)
		}
		out[b.ID] = ids
	}
	return out
}

// mergeOK runs a merge that must succeed and lose nothing: every branch
// there before is there after, by id, starting with every message it had.
func mergeOK(s *store, args ...string) string {
	s.t.Helper()
	before := allMessages(s, "a")
	out := s.ok("merge", args...)
	after := allMessages(s, "a")
	n, m := 0, 0
	for id, msgs := range before {
		got := after[id]
		if len(got) < len(msgs) || !slices.Equal(got[:len(msgs)], msgs) {
			s.t.Errorf("merge %v: branch %s had %d messages, has %d, or others", args, id, len(msgs), len(got))
		}
		n += len(msgs)
	}
	for _, msgs := range after {
		m += len(msgs)
	}
	if m < n {
		s.t.Errorf("merge %v: %d messages in all branches before, %d after", args, n, m)
	}
	return out
}

func TestMerge(t *testing.T) {
	s := newStore(t)
	seed(s, "a")
	s.ok("fork", "--at", "1", "a", "x")
	s.ok("append", "--branch", "x", "a", "on x 1")
	s.ok("append", "--branch", "x", "a", "on x 2")
	s.ok("append", "a", "main goes on")

	out := mergeOK(s, "a", "x")
	if out != "merged \"x\" into \"main\" (append): 2 messages added; the branches shared their first 3\n" {
		t.Fatalf("merge a x printed %q", out)
	}
	main := contents(s.messages("a"))
	if len(main) != 10 || main[7] != "main goes on" || main[8] != "on x 1" || main[9] != "on x 2" {
		t.Fatalf("main after the merge: %v", main)
	}
	// Again: main has x's messages by their ids, so nothing is added.
	if out := mergeOK(s, "a", "x", "main"); !strings.Contains(out, ": 0 messages added;") {
		t.Fatalf("merging again printed %q", out)
	}

	// replace into x: x's history after the ancestor becomes main's.
	out = mergeOK(s, "--strategy", "replace", "a", "main", "x")
	if !strings.Contains(out, `(replace): 7 messages added; the branches shared their first 3`) ||
		!strings.HasSuffix(out, "the previous head of \"x\" is branch \"x-before-merge-1\"\n") {
		t.Fatalf("merge --strategy replace printed %q", out)
	}
	if x := contents(s.messages("--branch", "x", "a")); !slices.Equal(x, contents(s.messages("a"))) {
		t.Fatalf("x after replace = %v, want main's history", x)
	}
	if old := contents(s.messages("--branch", "x-before-merge-1", "a")); len(old) != 5 || old[4] != "on x 2" {
		t.Fatalf("x-before-merge-1 = %v", old)
	}

	// The default branch cannot be cut.
	s.ok("append", "--branch", "x-before-merge-1", "a", "later")
	s.fails(1, `branch "main" is the default branch`, "", "merge", "--strategy", "replace", "a", "x-before-merge-1")
	s.fails(2, `--strategy "squash": it is append or replace`, "", "merge", "--strategy", "squash", "a", "x")
	s.fails(2, "missing arguments", "", "merge", "a")
	s.fails(1, `branch "nope": not found`, "", "merge", "a", "nope")
	s.fails(1, `cannot be merged into itself`, "", "merge", "a", "main")
}
