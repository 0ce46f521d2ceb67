package main

import (
	"strings"
	"testing"
)

func TestAppendText(t *testing.T) {
	s := newStore(t)
	s.ok("new", "a")
	if out := s.ok("append", "a", "first words"); out != "" {
		t.Fatalf("append printed %q", out)
	}
	s.ok("append", "--role", "assistant", "a", "reply")
	msgs := s.messages("a")
	if len(msgs) != 2 || msgs[0]["role"] != "user" || msgs[0]["content"] != "first words" ||
		msgs[1]["role"] != "assistant" || msgs[1]["content"] != "reply" {
		t.Fatalf("messages: %v", msgs)
	}
	// The store adds an id and a time.
	if id, _ := msgs[0]["id"].(string); id == "" {
		t.Fatalf("no id: %v", msgs[0])
	}
	if ts, _ := msgs[0]["ts"].(string); ts == "" {
		t.Fatalf("no ts: %v", msgs[0])
	}
}

func TestAppendStdinText(t *testing.T) {
	s := newStore(t)
	s.ok("new", "a")
	// All of stdin is one message; exactly one trailing newline goes.
	s.okStdin("line one\n  {not json}\n\n", "append", "a", "-")
	s.okStdin("  indented\n", "append", "--role", "system", "a", "-")
	msgs := s.messages("a")
	if len(msgs) != 2 || msgs[0]["content"] != "line one\n  {not json}\n" || msgs[1]["content"] != "  indented" || msgs[1]["role"] != "system" {
		t.Fatalf("messages: %v", msgs)
	}
	s.fails(1, "not valid UTF-8", "bad \xff bytes", "append", "a", "-")
	if n := len(s.messages("a")); n != 2 {
		t.Fatalf("invalid UTF-8 appended something: %d messages", n)
	}
}

// Nothing empty is appended, as through the mount: an empty TEXT is a
// command line that cannot run (exit 2), empty or blank standard input a
// failure (exit 1). Before, each added an empty message and a turn.
func TestAppendRefusesEmpty(t *testing.T) {
	s := newStore(t)
	s.ok("new", "a")
	s.fails(2, "the message is empty", "", "append", "a", "")
	s.fails(2, "the message is empty", "", "append", "--role", "assistant", "a", " \n\t")
	s.fails(2, "the message is empty or blank; nothing appended", "", "append", "a", " ")
	s.fails(1, "standard input is empty or blank", "", "append", "a", "-")
	s.fails(1, "standard input is empty or blank", " \n\n\t\n", "append", "a", "-")
	if x, _ := s.session("a", "active"); x.Messages != 0 {
		t.Fatalf("empty messages were appended: %d", x.Messages)
	}
}

func TestAppendStdinJSONLines(t *testing.T) {
	s := newStore(t)
	s.ok("new", "a")
	in := "\n  {\"role\":\"user\",\"content\":\"q\",\"x-tool\":{\"keep\":[1,2]}}\n\n" +
		`{"role":"assistant","content":[{"type":"text","text":"a"}]}` + "\r\n" +
		`{"role":"user","content":"last, no newline"}`
	s.okStdin(in, "append", "a", "-")
	msgs := s.messages("a")
	if len(msgs) != 3 || msgs[0]["content"] != "q" || msgs[2]["content"] != "last, no newline" || msgs[1]["role"] != "assistant" {
		t.Fatalf("messages: %v", msgs)
	}
	if x, ok := msgs[0]["x-tool"].(map[string]any); !ok || len(x["keep"].([]any)) != 2 {
		t.Fatalf("unknown field not kept: %v", msgs[0])
	}
	// JSON lines carry their own roles.
	s.fails(2, "--role applies to text", `{"role":"user","content":"x"}`, "append", "--role", "assistant", "a", "-")
}

// One bad line rejects the whole input, and the error points at the line
// as the user numbers it: blank lines count.
func TestAppendBadLineRejectsAll(t *testing.T) {
	s := newStore(t)
	s.ok("new", "a")
	s.ok("append", "a", "before")
	in := `{"role":"user","content":"one"}` + "\n\n" + `{"content":"no role"}` + "\n" + `{"role":"user","content":"four"}` + "\n"
	s.fails(1, `sessfs append: line 3: invalid: missing "role"`, in, "append", "a", "-")
	s.fails(1, "line 2: invalid: not valid JSON", `{"role":"user","content":"x"}`+"\n{broken\n", "append", "a", "-")
	s.fails(1, "line 1:", `{"role":"user","content":42}`, "append", "a", "-")
	if got := contents(s.messages("a")); len(got) != 1 || got[0] != "before" {
		t.Fatalf("a rejected input appended: %v", got)
	}
	if x, _ := s.session("a", "active"); x.Messages != 1 {
		t.Fatalf("ls counts %d messages", x.Messages)
	}
}

func TestAppendToBranch(t *testing.T) {
	s := newStore(t)
	s.ok("new", "a")
	s.ok("append", "a", "shared")
	s.ok("fork", "a", "side")
	s.ok("append", "--branch", "side", "a", "only on side")
	s.okStdin(`{"role":"user","content":"also on side"}`+"\n", "append", "a", "--branch", "side", "-")
	if got := contents(s.messages("a")); strings.Join(got, "|") != "shared" {
		t.Fatalf("main: %v", got)
	}
	if got := contents(s.messages("--branch", "side", "a")); strings.Join(got, "|") != "shared|only on side|also on side" {
		t.Fatalf("side: %v", got)
	}
	s.fails(1, `branch "nope": not found`, "", "append", "--branch", "nope", "a", "x")
}
