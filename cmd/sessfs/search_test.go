package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestSearchCommand: hits print where they are and their snippet with the
// match marked; filters narrow them; --json lines carry the documented
// keys; misuse is exit 2 with a reason, nothing found exit 1.
func TestSearchCommand(t *testing.T) {
	s := newStore(t)
	s.ok("new", "notes")
	s.okStdin(`{"role":"user","content":"how does group commit work?","ts":"2020-05-01T00:00:00Z"}
{"role":"assistant","content":"Appenders wait; one fsync covers a group commit."}
`, "append", "notes", "-")
	s.ok("fork", "notes", "side")
	s.ok("append", "--branch", "side", "notes", "group commit on a side branch")

	out := s.ok("search", `"group commit"`)
	if !strings.HasPrefix(out, "notes · turn 1 · ") || !strings.Contains(out, "«group commit»") {
		t.Errorf("search output:\n%s", out)
	}
	if n := strings.Count(out, "notes · "); n != 2 {
		t.Errorf("%d hits, want 2 (the side branch is not searched by default):\n%s", n, out)
	}
	if out := s.ok("search", "--branch", "all", "side"); !strings.Contains(out, "notes · branch side · turn 2") {
		t.Errorf("--branch all:\n%s", out)
	}
	if out := s.ok("search", "--role", "assistant", "group"); strings.Count(out, "notes · ") != 1 || !strings.Contains(out, "assistant") {
		t.Errorf("--role assistant:\n%s", out)
	}
	if out := s.ok("search", "--until", "2021-01-01", "group"); strings.Count(out, "notes · ") != 1 || !strings.Contains(out, "user") {
		t.Errorf("--until 2021-01-01:\n%s", out)
	}
	for _, line := range strings.Split(strings.TrimSpace(s.ok("search", "--json", "fsync")), "\n") {
		var h map[string]any
		if err := json.Unmarshal([]byte(line), &h); err != nil {
			t.Fatalf("--json line %q: %v", line, err)
		}
		for _, k := range []string{"session", "session_id", "state", "turn", "message", "role", "time", "snippet", "marks", "score", "path"} {
			if _, ok := h[k]; !ok {
				t.Errorf("--json line lacks %q: %s", k, line)
			}
		}
		if h["path"] != "notes/turns/1" {
			t.Errorf("path %v, want notes/turns/1", h["path"])
		}
	}
	if r := s.run("search", "nothingmatchesthis"); r.code != 1 || r.stdout != "" {
		t.Errorf("no hit: %v", r)
	}
	s.fails(2, "no word to find", "", "search", "NOT group")
	s.fails(2, "--branch takes 'all'", "", "search", "--branch", "side", "group")
	s.fails(2, "is not a time", "", "search", "--since", "last tuesday", "group")
}

func TestParseWhen(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"7d":                   now.Add(-7 * 24 * time.Hour),
		"90m":                  now.Add(-90 * time.Minute),
		"2w":                   now.Add(-14 * 24 * time.Hour),
		"2026-11-20T08:00:00Z": time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC),
		"2026-11-20":           time.Date(2026, 11, 20, 0, 0, 0, 0, time.Local),
	} {
		if got, err := parseWhen(in, now, false); err != nil || !got.Equal(want) {
			t.Errorf("parseWhen(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	// --until includes the day it names, not a time it names.
	if got, _ := parseWhen("20261120", now, true); !got.Equal(time.Date(2026, 11, 21, 0, 0, 0, 0, time.Local)) {
		t.Errorf("parseWhen(20261120, end) = %v, want the next day's start", got)
	}
	if got, _ := parseWhen("2026-11-20T08:00", now, true); !got.Equal(time.Date(2026, 11, 20, 8, 0, 0, 0, time.Local)) {
		t.Errorf("parseWhen(2026-11-20T08:00, end) = %v", got)
	}
	if got, err := parseWhen("", now, true); err != nil || !got.IsZero() {
		t.Errorf("parseWhen(\"\") = %v, %v; want no bound", got, err)
	}
	for _, in := range []string{"yesterday", "7x", "-3d"} {
		if _, err := parseWhen(in, now, false); err == nil {
			t.Errorf("parseWhen(%q) accepted", in)
		}
	}
}
