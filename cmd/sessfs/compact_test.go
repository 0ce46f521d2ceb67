package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// compactOK runs a compaction that must succeed and change nothing that
// was there: every branch there before is there after, by id, with the
// same messages; it returns the new branch's name.
func compactOK(s *store, stdin string, args ...string) string {
	s.t.Helper()
	before := allMessages(s, "s")
	out := s.okStdin(stdin, "compact", args...)
	after := allMessages(s, "s")
	n, m := 0, 0
	for id, msgs := range before {
		if !slices.Equal(after[id], msgs) {
			s.t.Errorf("compact %v: branch %s had %d messages, has %d, or others", args, id, len(msgs), len(after[id]))
		}
		n += len(msgs)
	}
	for _, msgs := range after {
		m += len(msgs)
	}
	if len(after) != len(before)+1 || m <= n {
		s.t.Errorf("compact %v: %d branches and %d messages before, %d and %d after", args, len(before), n, len(after), m)
	}
	return strings.TrimSuffix(out, "\n")
}

// sessfs compact makes a branch of the event line, the summary and the
// turns after --at, from a file or standard input, and leaves every
// branch as it was.
func TestCompact(t *testing.T) {
	s := newStore(t)
	seed(s, "s") // 7 messages, 2 turns
	main := s.messages("s")
	file := filepath.Join(t.TempDir(), "summary.md")
	if err := os.WriteFile(file, []byte("They asked a first question.\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	name := compactOK(s, "", "--at", "1", "--summary", file, "s")
	if name != "main-compact-1" {
		t.Fatalf("compact printed %q", name)
	}
	got := s.messages("--branch", name, "s")
	if len(got) != 6 {
		t.Fatalf("the compacted branch has %d lines, want 6: %v", len(got), got)
	}
	ev, _ := got[0]["data"].(map[string]any)
	if got[0]["role"] != "event" || got[0]["event"] != "compaction" || ev["summary"] != "They asked a first question." ||
		ev["boundary_turn"] != 1.0 || ev["from_branch"] != "main" || ev["model"] != nil {
		t.Errorf("the event line: %v", got[0])
	}
	if got[1]["role"] != "user" || got[1]["context"] != "compaction" || got[1]["content"] != "They asked a first question." {
		t.Errorf("the summary: %v", got[1])
	}
	for i := 2; i < 6; i++ {
		if got[i]["id"] != main[i+1]["id"] {
			t.Errorf("line %d is not main's message %d: %v", i, i+1, got[i])
		}
	}
	if out := s.ok("show", "--branch", name, "s"); !strings.Contains(out, "**compaction**") || !strings.Contains(out, "They asked a first question.") || strings.Contains(out, "Turn 2") {
		t.Errorf("show of the compacted branch:\n%s", out)
	}

	// From standard input, the whole history, a name and a model given.
	name = compactOK(s, "All of it.", "--summary", "-", "--model", "summarizer-1", "--name", "short", "s")
	got = s.messages("--branch", "short", "s")
	if ev, _ := got[0]["data"].(map[string]any); name != "short" || len(got) != 2 || ev["model"] != "summarizer-1" || ev["boundary_turn"] != 2.0 || got[1]["content"] != "All of it." {
		t.Errorf("compact from stdin: %q, %v", name, got)
	}
	// A compacted branch compacts again.
	if name := compactOK(s, "x", "--branch", "main-compact-1", "--summary", "-", "s"); name != "main-compact-1-compact-1" {
		t.Errorf("compacting a compacted branch made %q", name)
	}
}

// sessfs compact refuses, changing nothing, a turn the branch does not
// have, a missing or blank summary and a name taken.
func TestCompactRefuses(t *testing.T) {
	s := newStore(t)
	seed(s, "s")
	s.fails(1, `turn 3: branch "main" has 2 turns (compact at 1 to 2)`, "x", "compact", "--at", "3", "--summary", "-", "s")
	s.fails(2, "--at 0: turns count from 1", "x", "compact", "--at", "0", "--summary", "-", "s")
	s.fails(2, "--summary FILE|- is required", "", "compact", "s")
	s.fails(1, "summary must be text", " \n", "compact", "--summary", "-", "s")
	s.fails(1, "no-such-file", "", "compact", "--summary", filepath.Join(t.TempDir(), "no-such-file"), "s")
	s.fails(1, "exists", "x", "compact", "--name", "main", "--summary", "-", "s")
	s.ok("new", "empty")
	s.fails(1, `branch "main" has no turn to compact`, "x", "compact", "--summary", "-", "empty")
	if got := allMessages(s, "s"); len(got) != 1 {
		t.Errorf("refused compactions left branches: %v", got)
	}
}

// sessfs compact --list lists a branch's compactions, as compaction.json
// does: those sessfs made, with the turns and branch they stand for and
// the model, and those imported from Claude Code, with their marker; and
// makes none.
func TestCompactList(t *testing.T) {
	s := newStore(t)
	seed(s, "s")
	compactOK(s, "They asked two questions.\nThen more.", "--summary", "-", "--model", "summarizer-1", "--name", "short", "s")
	before := allMessages(s, "s")
	out := s.ok("compact", "--list", "--branch", "short", "s")
	rows := lines(out)
	if len(rows) != 2 || !strings.HasPrefix(rows[0], "TURN") {
		t.Fatalf("compact --list printed %q", out)
	}
	if f := strings.Fields(rows[1]); len(f) < 10 || strings.Join(f[:5], " ") != "1 turns 1-2 of main" || f[5] != "sessfs" ||
		!slices.Contains(f, "summarizer-1") || strings.Join(f[len(f)-4:], " ") != "They asked two questions." {
		t.Errorf("the row: %q", rows[1])
	}
	if out := s.ok("compact", "--list", "s"); len(lines(out)) != 1 {
		t.Errorf("main has no compaction, --list printed %q", out)
	}
	var listed []struct {
		Summary      string `json:"summary"`
		BoundaryTurn int    `json:"boundary_turn"`
		FromBranch   string `json:"from_branch"`
	}
	if err := json.Unmarshal([]byte(s.ok("compact", "--list", "--json", "--branch", "short", "s")), &listed); err != nil {
		t.Fatal(err)
	}
	if len(listed) != 1 || listed[0].Summary != "They asked two questions.\nThen more." || listed[0].BoundaryTurn != 2 || listed[0].FromBranch != "main" {
		t.Errorf("--json: %+v", listed)
	}
	if got := allMessages(s, "s"); len(got) != len(before) {
		t.Errorf("--list made a branch: %d branches, %d before", len(got), len(before))
	}
	s.fails(2, "--list makes no compaction: --summary goes without it", "", "compact", "--list", "--summary", "-", "s")
	s.fails(2, "--json goes with --list", "x", "compact", "--json", "--summary", "-", "s")

	// One imported: Claude Code's boundary and the summary after it.
	path := filepath.Join(t.TempDir(), "c1.jsonl")
	src := `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"c1","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"Fix the parser"}}
{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"c1","timestamp":"2026-01-01T00:00:05Z","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Fixed."}]}}
{"type":"system","subtype":"compact_boundary","content":"Conversation compacted","uuid":"b1","parentUuid":null,"logicalParentUuid":"a1","sessionId":"c1","timestamp":"2026-01-01T01:00:00Z"}
{"type":"user","uuid":"c2","parentUuid":"b1","isCompactSummary":true,"sessionId":"c1","timestamp":"2026-01-01T01:00:01Z","message":{"role":"user","content":"Summary: the parser was fixed."}}
`
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	name := strings.TrimSpace(s.ok("import", path))
	rows = lines(s.ok("compact", "--list", name))
	if len(rows) != 2 || !strings.Contains(rows[1], "turns 1-1") || !strings.Contains(rows[1], "imported (compact_boundary)") || !strings.HasSuffix(rows[1], "Summary: the parser was fixed.") {
		t.Errorf("an imported compaction: %q", rows)
	}
}
