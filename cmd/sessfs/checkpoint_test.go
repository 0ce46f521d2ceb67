package main

import (
	"encoding/json"
	"strings"
	"testing"
)

type checkpointJSON struct {
	Name    string `json:"name"`
	Message int    `json:"message"`
	Visible int    `json:"visible"`
	Turn    int    `json:"turn"`
	ID      string `json:"id"`
	TS      string `json:"ts"`
}

func listed(s *store, args ...string) []checkpointJSON {
	s.t.Helper()
	var out []checkpointJSON
	if err := json.Unmarshal([]byte(s.ok("checkpoint", append([]string{"--json"}, args...)...)), &out); err != nil {
		s.t.Fatal(err)
	}
	return out
}

// sessfs checkpoint appends the documented event line at the head, lists
// the marks, moves a name marked again, stores nothing for a mark where it
// stands already, refuses a name that could not be a file, and works on
// any branch.
func TestCheckpoint(t *testing.T) {
	s := newStore(t)
	seed(s, "s") // 7 messages, 2 turns
	if got := listed(s, "s"); len(got) != 0 {
		t.Fatalf("a session with no checkpoint lists %+v", got)
	}
	if out := s.ok("checkpoint", "s", "after 2"); out != "after 2\n" {
		t.Errorf("checkpoint printed %q", out)
	}
	msgs := s.messages("s")
	last := msgs[len(msgs)-1]
	if data, _ := last["data"].(map[string]any); last["role"] != "event" || last["event"] != "checkpoint" || last["content"] != "" || data["name"] != "after 2" {
		t.Errorf("the checkpoint's line: %v", last)
	}
	want := checkpointJSON{Name: "after 2", Message: 7, Visible: 7, Turn: 2}
	got := listed(s, "s")
	if len(got) != 1 || got[0].Name != want.Name || got[0].Message != want.Message || got[0].Visible != want.Visible || got[0].Turn != want.Turn || got[0].ID == "" || got[0].TS == "" {
		t.Errorf("listed %+v, want %+v with an id and a time", got, want)
	}

	// Again at the head: nothing stored.
	s.ok("checkpoint", "s", "after 2")
	if n := len(s.messages("s")); n != 8 {
		t.Errorf("marking the head again: %d lines, want 8", n)
	}
	// Later: it moves.
	s.ok("append", "s", "third question")
	s.ok("checkpoint", "s", "after 2")
	if got := listed(s, "s"); len(got) != 1 || got[0].Message != 9 || got[0].Turn != 3 {
		t.Errorf("after moving: %+v", got)
	}

	table := lines(s.ok("checkpoint", "s"))
	if len(table) != 2 || !strings.HasPrefix(table[0], "NAME") || !strings.HasPrefix(table[1], "after 2  3") {
		t.Errorf("the table: %q", table)
	}

	// A fork has the marks before its fork point, and its own.
	s.ok("fork", "--at", "2", "s", "x")
	s.ok("checkpoint", "--branch", "x", "s", "on-x")
	got = listed(s, "--branch", "x", "s")
	if len(got) != 2 || got[0].Name != "after 2" || got[0].Message != 7 || got[1].Name != "on-x" {
		t.Errorf("x's checkpoints: %+v", got)
	}
	if got := listed(s, "s"); len(got) != 1 {
		t.Errorf("x's checkpoint reached main: %+v", got)
	}

	for _, bad := range []string{"", ".hidden", "a/b", "tab\there"} {
		s.fails(exitUsage, "invalid name", "", "checkpoint", "s", bad)
	}
	s.fails(exitUsage, "give no NAME", "", "checkpoint", "--json", "s", "x")
	s.fails(exitFail, "not found", "", "checkpoint", "--branch", "nope", "s", "x")
}
