package integration

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/fsnode"
)

// humanPrompts counts the prompts a human typed in a real session file,
// worked out from the source alone, with generic JSON: Codex records each
// one as a user_message event (an item_completed UserMessage since 0.16x);
// in Claude Code it is a user line of the main thread that is not marked
// isMeta or isCompactSummary, is not only tool results, and is not one of
// the wrappers Claude Code writes itself (they begin with "<", "Caveat:"
// or "[Request interrupted").
func humanPrompts(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var line map[string]any
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			continue
		}
		if p, ok := line["payload"].(map[string]any); ok && line["type"] == "event_msg" {
			item, _ := p["item"].(map[string]any)
			if p["type"] == "user_message" || (p["type"] == "item_completed" && item["type"] == "UserMessage") {
				n++
			}
			continue
		}
		if line["type"] != "user" || line["isSidechain"] == true || line["isMeta"] == true || line["isCompactSummary"] == true {
			continue
		}
		m, _ := line["message"].(map[string]any)
		text, typed := "", false
		switch c := m["content"].(type) {
		case string:
			text, typed = c, true
		case []any:
			for _, b := range c {
				block, _ := b.(map[string]any)
				if block["type"] == "tool_result" {
					continue
				}
				typed = true
				if s, ok := block["text"].(string); ok && text == "" {
					text = s
				}
			}
		}
		text = strings.TrimSpace(text)
		if typed && !strings.HasPrefix(text, "<") && !strings.HasPrefix(text, "Caveat:") && !strings.HasPrefix(text, "[Request interrupted") {
			n++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// Every real session shows as many turns as its human typed prompts, in
// turns/, `sessfs show --turn` and info.json; and every count of messages
// (ls, branches, info.json, export.json) means the same thing.
func TestTurnsOfRealSessions(t *testing.T) {
	needCLI(t)
	files := sharedData(t, "claude-code/*.jsonl", "codex/*.jsonl")
	store := filepath.Join(t.TempDir(), "store")
	cli(t, store, "import", files...)
	m := mountStore(t, store, mountDir(t), fsnode.Options{})

	var listed []struct {
		Name     string `json:"name"`
		Messages int    `json:"messages"`
	}
	if err := json.Unmarshal([]byte(cli(t, store, "ls", "--json")), &listed); err != nil {
		t.Fatal(err)
	}
	if len(listed) != len(files) {
		t.Fatalf("%d sessions for %d files", len(listed), len(files))
	}
	for _, s := range listed {
		var meta struct {
			Source struct {
				Path string `json:"path"`
			} `json:"source"`
		}
		if err := json.Unmarshal([]byte(cat(t, m.P(s.Name, "meta.json"))), &meta); err != nil {
			t.Fatal(err)
		}
		want := humanPrompts(t, meta.Source.Path)
		if want == 0 {
			t.Fatalf("%s: the oracle finds no prompt in %s", s.Name, meta.Source.Path)
		}
		turns := ls(t, m.P(s.Name, "turns"))
		if len(turns) != want {
			t.Errorf("%s: %d turns, the source has %d typed prompts", s.Name, len(turns), want)
		}
		for k := 1; k <= len(turns); k++ {
			if !contains(turns, strconv.Itoa(k)) {
				t.Errorf("%s: turns/ lists %v", s.Name, turns)
			}
		}
		// show --turn follows the same numbering, and past it says so.
		last := strconv.Itoa(want)
		if got, full := cli(t, store, "show", "--turn", last, s.Name), cat(t, m.P(s.Name, "turns", last, "transcript.md")); got != full {
			t.Errorf("%s: show --turn %s differs from turns/%s/transcript.md", s.Name, last, last)
		}
		if r := cliResult(t, store, "", "show", "--turn", strconv.Itoa(want+1), s.Name); r.code == 0 {
			t.Errorf("%s: show --turn %d succeeded", s.Name, want+1)
		}

		// One unit for "messages": what ls counts is what branches,
		// info.json and export.json count, and export.json holds that
		// many visible messages.
		var info struct {
			Messages int `json:"messages"`
			Turns    int `json:"turns"`
		}
		if err := json.Unmarshal([]byte(cat(t, m.P(s.Name, "branches", "main", "info.json"))), &info); err != nil {
			t.Fatal(err)
		}
		var branches []struct {
			Name     string `json:"name"`
			Messages int    `json:"messages"`
		}
		if err := json.Unmarshal([]byte(cli(t, store, "branches", "--json", s.Name)), &branches); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Messages []struct {
				Role string `json:"role"`
			} `json:"messages"`
		}
		if err := json.Unmarshal([]byte(cat(t, m.P(s.Name, "export.json"))), &doc); err != nil {
			t.Fatal(err)
		}
		visible := 0
		for _, msg := range doc.Messages {
			if msg.Role != "event" {
				visible++
			}
		}
		if info.Messages != s.Messages || info.Turns != want || len(branches) != 1 || branches[0].Messages != s.Messages || visible != s.Messages {
			t.Errorf("%s: ls counts %d messages; info.json %d (%d turns), branches %+v, export.json %d visible",
				s.Name, s.Messages, info.Messages, info.Turns, branches, visible)
		}
	}
}
