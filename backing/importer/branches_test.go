package importer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/integration/realdata"
)

func claudeLine(uuid, parent, typ, content string) string {
	c, _ := json.Marshal(content)
	return `{"type":"` + typ + `","uuid":"` + uuid + `","parentUuid":` + quoteOrNull(parent) +
		`,"sessionId":"s1","timestamp":"2026-01-01T00:00:00Z","message":{"role":"` + typ + `","content":` + string(c) + `}}`
}

func quoteOrNull(s string) string {
	if s == "" {
		return "null"
	}
	return `"` + s + `"`
}

func contents(t *testing.T, lines [][]byte) []string {
	t.Helper()
	var out []string
	for _, l := range lines {
		var m struct{ Content string }
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m.Content)
	}
	return out
}

// A rewind (a new prompt under an earlier reply that already had one)
// leaves the old path as a fork at that reply; a second rewind further
// back takes the first fork along.
func TestBranchesRewind(t *testing.T) {
	src := strings.Join([]string{
		claudeLine("u1", "", "user", "first question"),
		claudeLine("a1", "u1", "assistant", "answer"),
		claudeLine("u2", "a1", "user", "follow-up X"),
		claudeLine("a2", "u2", "assistant", "reply X"),
		claudeLine("u3", "a1", "user", "follow-up Y"), // rewind to a1
		claudeLine("a3", "u3", "assistant", "reply Y"),
		claudeLine("u4", "a3", "user", "more on Y"),
		claudeLine("a4", "u4", "assistant", "more Y"),
		claudeLine("u5", "a3", "user", "other on Y"), // rewind to a3
		claudeLine("a5", "u5", "assistant", "other Y"),
	}, "\n") + "\n"
	s, err := Decode(strings.NewReader(src), ClaudeCode)
	if err != nil {
		t.Fatal(err)
	}
	main, forks, err := s.Branches()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(contents(t, main), "|"); got != "first question|answer|follow-up Y|reply Y|other on Y|other Y" {
		t.Errorf("main = %s", got)
	}
	if len(forks) != 2 {
		t.Fatalf("%d forks, want 2: %+v", len(forks), forks)
	}
	want := []struct {
		name, from string
		at         int
		lines      string
	}{
		{"rewind-1", "", 2, "follow-up X|reply X"},
		{"rewind-2", "", 4, "more on Y|more Y"},
	}
	for i, w := range want {
		f := forks[i]
		if f.Name != w.name || f.From != w.from || f.At != w.at || strings.Join(contents(t, f.Lines), "|") != w.lines {
			t.Errorf("fork %d = %s from %q at %d: %q, want %+v", i, f.Name, f.From, f.At, contents(t, f.Lines), w)
		}
	}
}

// The real sessions hold no rewind, but one has parallel tool calls,
// whose results are second children of their calls: none is a fork.
func TestBranchesRealDataLinear(t *testing.T) {
	files, _ := realdata.Files()
	if len(files) == 0 {
		t.Skip("no real sessions beside the repository")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := DecodeFile(f)
		if err != nil {
			t.Fatal(err)
		}
		main, forks, err := s.Branches()
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, l := range strings.Split(string(data), "\n") {
			if strings.TrimSpace(l) != "" {
				n++
			}
		}
		if len(forks) != 0 || len(main) != n {
			t.Errorf("%s: %d lines in main, %d forks; want all %d lines in main", filepath.Base(f), len(main), len(forks), n)
		}
	}
}

// A subagent's lines (isSidechain) make a branch of their own, forked
// where the conversation was when it started; the conversation goes on in
// the default branch undisturbed.
func TestBranchesSubagent(t *testing.T) {
	side := func(uuid, parent, typ, content string) string {
		l := claudeLine(uuid, parent, typ, content)
		return strings.Replace(l, `"type":`, `"isSidechain":true,"type":`, 1)
	}
	src := strings.Join([]string{
		claudeLine("u1", "", "user", "research this"),
		claudeLine("a1", "u1", "assistant", "starting a subagent"),
		side("s1", "", "user", "subagent task"),
		side("s2", "s1", "assistant", "subagent finding"),
		claudeLine("u2", "a1", "user", "thanks"),
		side("s3", "s2", "user", "subagent more"),
		claudeLine("a2", "u2", "assistant", "summary"),
	}, "\n") + "\n"
	s, err := Decode(strings.NewReader(src), ClaudeCode)
	if err != nil {
		t.Fatal(err)
	}
	main, forks, err := s.Branches()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(contents(t, main), "|"); got != "research this|starting a subagent|thanks|summary" {
		t.Errorf("main = %s", got)
	}
	if len(forks) != 1 || forks[0].Name != "subagent-1" || forks[0].From != "" || forks[0].At != 2 ||
		strings.Join(contents(t, forks[0].Lines), "|") != "subagent task|subagent finding|subagent more" {
		t.Errorf("forks = %+v", forks)
	}
}

// The place in the tree Claude Code's decoder gives each line as it
// decodes it (what a streaming import splits branches by) is the one its
// stored message says (what Branches splits them by), line for line: on
// real sessions and on one of rewinds, subagents, compactions and
// context.
func TestDecoderNodesAsStored(t *testing.T) {
	sources := map[string][]byte{
		"rewinds": []byte(strings.Join(append(rewindSession(),
			`{"type":"system","subtype":"compact_boundary","uuid":"c1","parentUuid":null,"logicalParentUuid":"a7","content":"Conversation compacted","timestamp":"2025-01-01T00:00:00Z"}`,
			`{"type":"user","uuid":"c2","parentUuid":"c1","isMeta":true,"message":{"role":"user","content":"<command-name>/x</command-name>"}}`,
			`{"type":"user","uuid":"c3","parentUuid":"c2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]}}`,
			`"not an object"`,
			`{"type":"summary","summary":"s","leafUuid":"c3"}`,
		), "\n") + "\n"),
	}
	files, _ := realdata.Files("claude-code")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sources[filepath.Base(f)] = data
	}
	for name, data := range sources {
		var nodes, stored []treeNode
		_, err := decodeStream(strings.NewReader(string(data)), ClaudeCode, func(n treeNode) { nodes = append(nodes, n) },
			func(_ int, l []byte) error {
				stored = append(stored, nodeOfStored(l))
				return nil
			})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		prompts := 0
		for i := range stored {
			if i >= len(nodes) || nodes[i] != stored[i] {
				t.Fatalf("%s: line %d: the decoder places it at %+v, its message at %+v", name, i, nodes[i], stored[i])
			}
			if stored[i].prompt {
				prompts++
			}
		}
		if len(nodes) != len(stored) || prompts == 0 {
			t.Errorf("%s: %d nodes for %d lines, %d prompts", name, len(nodes), len(stored), prompts)
		}
	}
}
