package main

import (
	"strings"
	"testing"
)

// sessfs event appends the documented line, from --data or standard
// input, refuses data that breaks its kind's shape (storing nothing), and
// what it writes counts: a usage event in sessfs usage, a turn_end and a
// run_errored in the transcript sessfs show prints.
func TestEvent(t *testing.T) {
	s := newStore(t)
	s.ok("new", "s")
	s.ok("append", "s", "first question")
	if out := s.ok("event", "s", "usage", "--data", `{"input":1200,"output":34,"model":"claude-sonnet-4"}`); out != "" {
		t.Errorf("event printed %q", out)
	}
	s.ok("event", "s", "turn_end")
	msgs := s.messages("s")
	last := msgs[len(msgs)-1]
	if last["role"] != "event" || last["event"] != "turn_end" || last["content"] != "" {
		t.Errorf("the turn_end line: %v", last)
	}
	if data, _ := msgs[1]["data"].(map[string]any); msgs[1]["event"] != "usage" || data["input"] != 1200.0 {
		t.Errorf("the usage line: %v", msgs[1])
	}
	if out := s.ok("usage", "s"); !strings.Contains(out, "1200") && !strings.Contains(out, "1,200") && !strings.Contains(out, "1.2") {
		t.Errorf("sessfs usage does not count the usage event:\n%s", out)
	}

	s.fails(exitUsage, `data.interrupted must be true or false`, "", "event", "s", "turn_end", "--data", `{"interrupted":"yes"}`)
	s.fails(exitUsage, `data.error`, "", "event", "s", "run_errored")
	s.fails(exitUsage, "not valid JSON", "", "event", "s", "usage", "--data", `{`)
	if n := len(s.messages("s")); n != 3 {
		t.Errorf("refused events stored something: %d lines, want 3", n)
	}

	s.ok("append", "s", "second question")
	s.okStdin(`{"error":"overloaded"}`, "event", "s", "run_errored", "--data", "-")
	s.ok("append", "s", "third question")
	s.ok("append", "s", "fourth question")
	out := s.ok("show", "s")
	for _, want := range []string{"_[run errored: overloaded]_", "third question\n\n_[turn 3 was interrupted: it has no turn\\_end]_\n\n## Turn 4"} {
		if !strings.Contains(out, want) {
			t.Errorf("sessfs show lacks %q:\n%s", want, out)
		}
	}
	if out := s.ok("show", "s", "--turn", "4"); !strings.HasPrefix(out, "_[turn 3 was interrupted") {
		t.Errorf("sessfs show --turn 4 does not open with turn 3's mark:\n%s", out)
	}
}
