package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// seed makes a session of two turns: a system prompt and a question with its
// answer, then a second question whose answer has a tool call and result.
func seed(s *store, name string) {
	s.t.Helper()
	s.ok("new", name)
	s.okStdin(strings.Join([]string{
		`{"role":"system","content":"be brief"}`,
		`{"role":"user","content":"first question"}`,
		`{"role":"assistant","content":"first answer"}`,
		`{"role":"user","content":"second question"}`,
		`{"role":"assistant","content":[{"type":"text","text":"looking"},{"type":"tool_use","id":"t1","name":"grep","input":{"q":"x"}}]}`,
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"found"}]}`,
		`{"role":"assistant","content":"second answer"}`,
	}, "\n")+"\n", "append", name, "-")
}

func TestShowMarkdown(t *testing.T) {
	s := newStore(t)
	seed(s, "a")
	out := s.ok("show", "a")
	order := []string{"Turn 1", "be brief", "first question", "first answer", "Turn 2", "second question", "looking", "second answer"}
	at := 0
	for _, want := range order {
		i := strings.Index(out[at:], want)
		if i < 0 {
			t.Fatalf("show: %q missing or out of order in:\n%s", want, out)
		}
		at += i
	}
	if strings.Contains(out, "Turn 3") {
		t.Fatalf("a tool result must not start a turn:\n%s", out)
	}
	if md := s.ok("show", "--format", "md", "a"); md != out {
		t.Fatal("--format md differs from the default")
	}

	turn2 := s.ok("show", "--turn", "2", "a")
	if !strings.Contains(turn2, "Turn 2") || !strings.Contains(turn2, "second answer") || strings.Contains(turn2, "first question") {
		t.Fatalf("show --turn 2:\n%s", turn2)
	}
	s.fails(1, "turn 3: not found", "", "show", "--turn", "3", "a")
	s.fails(2, "turns count from 1", "", "show", "--turn", "0", "a")
	s.fails(2, `--format "html"`, "", "show", "--format", "html", "a")
}

func TestShowJSONL(t *testing.T) {
	s := newStore(t)
	seed(s, "a")
	out := s.ok("show", "--format", "jsonl", "a")
	rows := lines(out)
	if len(rows) != 7 {
		t.Fatalf("want 7 lines:\n%s", out)
	}
	for _, l := range rows {
		if !json.Valid([]byte(l)) {
			t.Fatalf("not JSON: %q", l)
		}
	}
	msgs := s.messages("--turn", "1", "a")
	if got := contents(msgs); strings.Join(got, "|") != "be brief|first question|first answer" {
		t.Fatalf("turn 1: %v", got)
	}
	if n := len(s.messages("--turn", "2", "a")); n != 4 {
		t.Fatalf("turn 2 has %d messages, want 4", n)
	}
}

func TestShowEmptySession(t *testing.T) {
	s := newStore(t)
	s.ok("new", "a")
	if out := s.ok("show", "a"); !strings.HasPrefix(out, "# a\n") || strings.Contains(out, "## Turn") {
		t.Fatalf("show of an empty session: %q, want its header alone", out)
	}
	s.fails(1, "turn 1: not found", "", "show", "--turn", "1", "a")
}

// More messages than one read chunk come out whole and in order.
func TestShowManyMessages(t *testing.T) {
	s := newStore(t)
	s.ok("new", "big")
	var in strings.Builder
	const n = showChunk*2 + 7
	for i := range n {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		b, _ := json.Marshal(map[string]string{"role": role, "content": strings.Repeat("x", i%50) + "#" + string(rune('a'+i%26))})
		in.Write(b)
		in.WriteByte('\n')
	}
	s.okStdin(in.String(), "append", "big", "-")
	if got := lines(s.ok("show", "--format", "jsonl", "big")); len(got) != n {
		t.Fatalf("show printed %d lines, want %d", len(got), n)
	}
	if x, _ := s.session("big", "active"); x.Messages != n {
		t.Fatalf("ls counts %d", x.Messages)
	}
	md := s.ok("show", "big")
	if c := strings.Count(md, "## Turn "); c != (n+1)/2 {
		t.Fatalf("markdown has %d turn headings, want %d", c, (n+1)/2)
	}
}
