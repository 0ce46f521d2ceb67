package agents_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/integration/agents"
)

// checkTurn asserts what the agent's loop sent in one turn: a first call
// ending with the prompt, on which the stand-in asked for the tool; then
// a call carrying the tool's result (the project's listing), answered
// with text. It returns that answer.
func checkTurn(t *testing.T, calls []agents.Call, prompt string) string {
	t.Helper()
	if len(calls) != 2 {
		t.Fatalf("want 2 model calls with tools in a turn (the prompt, the tool's result), got %d:\n%s", len(calls), describe(calls))
	}
	if last := lastMessage(calls[0]); last.Role != "user" || !strings.Contains(last.Text, prompt) {
		t.Errorf("the turn's first call does not end with the prompt %q:\n%s", prompt, describe(calls[:1]))
	}
	if !strings.HasPrefix(calls[0].Reply, "tool ") {
		t.Errorf("the stand-in did not ask for the tool: %q", calls[0].Reply)
	}
	last := lastMessage(calls[1])
	if len(last.ToolResults) != 1 || !strings.Contains(last.ToolResults[0], "README.md") || !strings.Contains(last.ToolResults[0], "calc.py") {
		t.Errorf("the turn's second call does not end with the tool's result, a listing of the project:\n%s", describe(calls[1:]))
	}
	if strings.HasPrefix(calls[1].Reply, "tool ") {
		t.Fatalf("the stand-in answered a tool result with a tool call")
	}
	return calls[1].Reply
}

// checkResumed asserts that the first call of a resumed session carried
// turn 1 whole, in order (prompt, tool call, tool result, answer), then
// the new prompt, and that turn 1's prompt is there once: the resume
// continued the session rather than starting over or repeating it.
func checkResumed(t *testing.T, calls []agents.Call, prompt1, answer1 string) {
	t.Helper()
	if len(calls) == 0 {
		t.Fatal("the resume made no model call with tools")
	}
	var got []string
	for _, m := range calls[0].History {
		if m.Role != "system" {
			got = append(got, render(m))
		}
	}
	want := []struct{ role, holds string }{
		{"user", prompt1}, {"assistant", "[tool "}, {"user", "[result: "}, {"assistant", answer1}, {"user", prompt2},
	}
	i := 0
	for _, g := range got {
		if i < len(want) && strings.HasPrefix(g, want[i].role+": ") && strings.Contains(g, want[i].holds) {
			i++
		}
	}
	if i < len(want) {
		t.Errorf("the resume's first call lacks turn 1 in order: found %d of %v in:\n%s", i, want, strings.Join(got, "\n"))
	}
	if !strings.Contains(got[len(got)-1], prompt2) {
		t.Errorf("the resume's first call does not end with the new prompt:\n%s", strings.Join(got, "\n"))
	}
	if n := strings.Count(strings.Join(got, "\n"), prompt1); n != 1 {
		t.Errorf("turn 1's prompt is in the resume's first call %d times, want once:\n%s", n, strings.Join(got, "\n"))
	}
}

func lastMessage(c agents.Call) agents.Message {
	for i := len(c.History) - 1; i >= 0; i-- {
		if c.History[i].Role != "system" {
			return c.History[i]
		}
	}
	return agents.Message{}
}

// render is a message on one line of a failure report.
func render(m agents.Message) string {
	s := m.Role + ": " + m.Text
	for _, c := range m.ToolCalls {
		s += " [tool " + c + "]"
	}
	for _, r := range m.ToolResults {
		s += " [result: " + r + "]"
	}
	return strings.ReplaceAll(s, "\n", `\n`)
}

func describe(calls []agents.Call) string {
	var b strings.Builder
	for i, c := range calls {
		fmt.Fprintf(&b, "call %d %s, answered %q:\n", i, c.Path, c.Reply)
		for _, m := range c.History {
			s := render(m)
			if len(s) > 300 {
				s = s[:150] + " … " + s[len(s)-150:]
			}
			fmt.Fprintf(&b, "  %s\n", s)
		}
	}
	return b.String()
}

// onlyFile is the one file pattern matches.
func onlyFile(t *testing.T, pattern string) string {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) != 1 {
		t.Fatalf("want one file %s, got %q (%v)", pattern, files, err)
	}
	return files[0]
}

// fileHolds asserts that the session file holds each string (as written
// in JSON: the strings here have no characters JSON escapes).
func fileHolds(t *testing.T, file string, want ...string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !strings.Contains(string(data), w) {
			t.Errorf("%s does not hold %q", file, w)
		}
	}
}
