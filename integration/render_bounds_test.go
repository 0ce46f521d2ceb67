package integration

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// renderBombs are messages built to cost much to render (the red team's
// first two, and the shapes of render's TestBombs that cost the most): a
// session each.
func renderBombs() map[string]string {
	blocks := func(role, block string, n int) string {
		return `{"role":"` + role + `","content":[` + strings.TrimSuffix(strings.Repeat(block+",", n), ",") + `]}`
	}
	return map[string]string{
		"nested-arrays":   `{"role":"user","content":` + strings.Repeat("[", 9000) + strings.Repeat("]", 9000) + `}`,
		"deep-tool-input": `{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"Bash","input":` + strings.Repeat(`{"a":`, 3000) + "1" + strings.Repeat("}", 3000) + `}]}`,
		"long-text":       jsonMsg("user", strings.Repeat("word ", 250000)),
		"many-parts":      blocks("assistant", `{"type":"text","text":"x"}`, 50000),
		"emphasis":        jsonMsg("user", strings.Repeat("*a_ ", 50000)),
		"nested-lists":    jsonMsg("user", strings.Repeat("- ", 100000)+"a"),
		"padded-table":    jsonMsg("user", "|"+strings.Repeat("a|", 5000)+"\n|"+strings.Repeat("-|", 5000)+"\n"+strings.Repeat("b\n", 50000)),
		"dense-secrets":   jsonMsg("user", strings.Repeat("token: ", 150000)),
		// Pieces of many read requests each (a piece is rendered once a
		// read, not once a request): 3.6 MiB of images drawn in
		// transcript.html, and 1.5 MiB of parts.
		"big-images": blocks("user", `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"`+strings.Repeat("A", 1200<<10)+`"}}`, 3),
		"big-parts":  blocks("assistant", `{"type":"text","text":"`+strings.Repeat("b", 500<<10)+`"}`, 3),
	}
}

// Rendering is bounded: a message, however nested or large, appended
// through the mount, reads back in every rendering within a second (five
// with the race detector), at the size stat gives. Before, 18 KB of nested
// arrays made transcript.md 162 MB, its stat took 3.5 s and a cat did not
// end in 60 s.
func TestRenderBombsReadQuickly(t *testing.T) {
	m := newMount(t)
	limit := time.Second
	if raceDetector {
		limit *= 5
	}
	for name, bomb := range renderBombs() {
		t.Run(name, func(t *testing.T) {
			dir := m.P(name)
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(m.P(name, "append"), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteString(jsonMsg("user", "what follows is a bomb") + "\n" + bomb + "\n"); err != nil {
				t.Fatalf("append: %v", err)
			}
			if err := f.Close(); err != nil {
				t.Fatalf("close append: %v", err)
			}
			turns := ls(t, m.P(name, "turns")) // the bomb is in the last
			for _, file := range []string{"transcript.md", "transcript.html", "transcript.redacted.md",
				"messages.jsonl", "export.json", "turns/" + turns[len(turns)-1] + "/transcript.md"} {
				path := m.P(name, file)
				start := time.Now()
				size := statSize(t, path)
				out := cat(t, path)
				d := time.Since(start)
				t.Logf("%s: %d bytes in %v", file, len(out), d)
				if d > limit {
					t.Errorf("%s: stat and cat took %v, more than %v", file, d, limit)
				}
				if int64(len(out)) != size {
					t.Errorf("%s: cat read %d bytes, stat said %d", file, len(out), size)
				}
				if strings.HasSuffix(file, ".md") && len(out) > 5<<20 || len(out) > 32<<20 {
					t.Errorf("%s: %d bytes", file, len(out))
				}
			}
			// messages.jsonl keeps the message whole, its content byte for byte.
			ms := strings.Split(strings.TrimSuffix(cat(t, m.P(name, "messages.jsonl")), "\n"), "\n")
			var got, want map[string]json.RawMessage
			if err := json.Unmarshal([]byte(ms[len(ms)-1]), &got); err != nil {
				t.Fatalf("the last line of messages.jsonl: %v", err)
			}
			json.Unmarshal([]byte(bomb), &want)
			if !bytes.Equal(got["content"], want["content"]) {
				t.Errorf("messages.jsonl does not hold the message's content whole: %d bytes, want %d", len(got["content"]), len(want["content"]))
			}
		})
	}
}
