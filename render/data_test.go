package render

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sessfs/sessfs/integration/realdata"
)

// realData is the real sessions written by the agents, kept beside the
// repository; it skips the test where they are absent.
func realData(t testing.TB) []string {
	t.Helper()
	files, err := realdata.Files()
	if err != nil || len(files) == 0 {
		t.Skipf("no real sessions beside the repository: %v", err)
	}
	return files
}

// TestRealSessions renders every message of the sample Claude Code and Codex
// sessions, converted to the stored shape, and checks that nothing panics,
// the output is valid UTF-8 and every text block's text appears in it.
func TestRealSessions(t *testing.T) {
	realData(t)
	n := 0
	eachLine(t, "claude-code", func(line []byte) {
		var rec struct {
			Message json.RawMessage `json:"message"`
		}
		if json.Unmarshal(line, &rec) != nil {
			return
		}
		msg, ok := parseObject(rec.Message)
		if !ok {
			return
		}
		role, ok := msg.str("role")
		content := msg.get("content")
		has := content != nil
		if !ok || !has {
			return
		}
		n++
		checkReal(t, stored(role, content), content)
	})
	eachLine(t, "codex", func(line []byte) {
		var rec struct {
			Type    string          `json:"type"`
			Payload json.RawMessage `json:"payload"`
		}
		if json.Unmarshal(line, &rec) != nil || rec.Type != "response_item" {
			return
		}
		p, ok := parseObject(rec.Payload)
		if !ok {
			return
		}
		typ, _ := p.str("type")
		var raw []byte
		content := rec.Payload
		switch typ {
		case "message":
			role, _ := p.str("role")
			content = p.get("content")
			raw = stored(role, content)
		case "function_call", "reasoning":
			content = json.RawMessage("[" + string(rec.Payload) + "]")
			raw = stored("assistant", content)
		case "function_call_output":
			content = json.RawMessage("[" + string(rec.Payload) + "]")
			raw = stored("user", content)
		default:
			return
		}
		n++
		checkReal(t, raw, content)
	})
	if n == 0 {
		t.Fatal("no messages found in the real sessions")
	}
	t.Logf("rendered %d real messages", n)
}

// eachLine calls fn with every line of every real session of agent.
func eachLine(t *testing.T, agent string, fn func(line []byte)) {
	t.Helper()
	files, err := realdata.Files(agent)
	if err != nil || len(files) == 0 {
		t.Fatalf("no real sessions of %s: %v", agent, err)
	}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			fn(sc.Bytes())
		}
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		f.Close()
	}
}

// stored builds a message in the store's shape, keeping content's bytes
// (json.Marshal would compact them and escape <, > and &).
func stored(role string, content json.RawMessage) []byte {
	if content == nil {
		content = json.RawMessage("null")
	}
	r, _ := json.Marshal(role)
	return []byte(`{"role":` + string(r) + `,"content":` + string(content) +
		`,"id":"x","ts":"2026-01-01T00:00:00Z"}`)
}

func checkReal(t *testing.T, raw []byte, content json.RawMessage) {
	t.Helper()
	m := Message{Raw: raw, Turn: 1}
	out := string(Markdown(m))
	if out == "" || !utf8.ValidString(out) {
		t.Fatalf("bad output for %s: %q", raw, out)
	}
	checkPiece(t, m, []byte(out))
	o, _ := parseObject(raw)
	if f := readFields(o); contextKind(&f) != "" {
		// Injected context is one line naming its kind and size.
		if !strings.Contains(out, "_[context: ") || strings.Count(out, "\n") > 4 {
			t.Errorf("context not shown as one line:\n%s", out)
		}
		return
	}
	for _, text := range texts(content) {
		if !strings.Contains(out, strings.TrimSpace(text)) {
			t.Errorf("text %q missing from\n%s", text, out)
		}
	}
}

// texts returns the text of every text block in content (and of reasoning
// summaries), or content itself when it is a string.
func texts(content json.RawMessage) []string {
	if s, ok := asString(content); ok {
		return []string{s}
	}
	var out []string
	blocks, _ := asArray(content)
	for _, v := range blocks {
		b, ok := parseObject(v)
		if !ok {
			continue
		}
		switch t, _ := b.str("type"); t {
		case "text", "input_text", "output_text":
			if s, ok := b.str("text"); ok {
				out = append(out, s)
			}
		case "reasoning":
			summary, _ := asArray(b.get("summary"))
			for _, s := range summary {
				if o, ok := parseObject(s); ok {
					if text, ok := o.str("text"); ok {
						out = append(out, text)
					}
				}
			}
		}
	}
	return out
}
