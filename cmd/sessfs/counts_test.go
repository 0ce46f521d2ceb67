package main

import (
	"encoding/json"
	"testing"
)

// A count a person reads or types counts visible messages: events (lines
// an import keeps that are not conversation) are left out of fork
// --at-message, of MESSAGES and of FORKED AT, wherever they sit.
func TestCountsSkipEvents(t *testing.T) {
	s := newStore(t)
	s.ok("new", "a")
	s.okStdin(`{"role":"event","content":""}
{"role":"user","content":"q"}
{"role":"event","content":""}
{"role":"assistant","content":"a"}
{"role":"event","content":""}
`, "append", "a", "-")
	s.ok("fork", "--at-message", "1", "a", "m1")
	if got := contents(s.messages("--branch", "m1", "a")); len(got) != 2 || got[1] != "q" {
		t.Errorf("fork --at-message 1 keeps %q, want the event before q and q", got)
	}
	s.ok("fork", "a", "head")
	var rows []struct {
		Name     string `json:"name"`
		Messages int    `json:"messages"`
		ForkedAt *int   `json:"forked_at"`
	}
	if err := json.Unmarshal([]byte(s.ok("branches", "--json", "a")), &rows); err != nil {
		t.Fatal(err)
	}
	want := map[string][2]int{"main": {2, -1}, "m1": {1, 1}, "head": {2, 2}}
	for _, r := range rows {
		at := -1
		if r.ForkedAt != nil {
			at = *r.ForkedAt
		}
		if w := want[r.Name]; r.Messages != w[0] || at != w[1] {
			t.Errorf("branch %s: %d messages, forked at %d; want %d, %d", r.Name, r.Messages, at, w[0], w[1])
		}
	}
	s.fails(1, `fork point 3: branch "main" has 2 messages`, "", "fork", "--at-message", "3", "a", "x")
}
