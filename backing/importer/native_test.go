package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

// said is one message as the tests compare them: its role and text.
type said struct{ role, text string }

// conversation is what a person reads of stored messages: the role and
// text of each that is neither an event nor injected context, and has
// text. Codex's developer messages are instructions, so left out too.
func conversation(t *testing.T, msgs [][]byte) []said {
	t.Helper()
	var out []said
	for _, raw := range msgs {
		var m storedMsg
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		role := m.Role
		if role == "tool" || role == backing.EventRole || m.Context != "" || (role != "user" && role != "assistant") {
			continue
		}
		if text := firstText(m.Content); strings.TrimSpace(text) != "" {
			out = append(out, said{role, text})
		}
	}
	return out
}

// firstText is the first text of content: a string, or the first text
// block of an array in any agent's shape (a bare string, a block of type
// text, input_text or output_text, a Gemini part that is not a thought).
func firstText(content json.RawMessage) string {
	if s, ok := jsonString(content); ok {
		return s
	}
	var blocks []json.RawMessage
	json.Unmarshal(content, &blocks)
	for _, b := range blocks {
		if s, ok := jsonString(b); ok {
			return s
		}
		var p struct {
			Type    string  `json:"type"`
			Text    *string `json:"text"`
			Thought bool    `json:"thought"`
		}
		json.Unmarshal(b, &p)
		switch p.Type {
		case "", "text", "input_text", "output_text":
			if p.Text != nil && !p.Thought {
				return *p.Text
			}
		}
	}
	return ""
}

// branchMessages are the stored messages of s's default branch.
func branchMessages(t *testing.T, s backing.Session) [][]byte {
	t.Helper()
	v, err := s.ViewID("")
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := v.Read(0, v.Len())
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, m := range msgs {
		out = append(out, m.Raw)
	}
	return out
}

// writeNative writes s's default branch in format f and decodes it back
// with this package's own Decode, which must read it as that format.
func writeNative(t *testing.T, s backing.Session, f Format) (Native, []byte, *Session) {
	t.Helper()
	var b bytes.Buffer
	n, err := WriteNative(&b, f, s, "", NativeOptions{Cwd: "/home/dev/project", Now: time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := Detect(bytes.NewReader(b.Bytes())); err != nil || got != f {
		t.Fatalf("the written file detects as %q (%v), want %q:\n%s", got, err, f, b.Bytes())
	}
	back, err := Decode(bytes.NewReader(b.Bytes()), f)
	if err != nil {
		t.Fatalf("Decode of the written file: %v\n%s", err, b.Bytes())
	}
	if back.SourceID != n.ID {
		t.Errorf("the written file says its id is %q, want the new %q", back.SourceID, n.ID)
	}
	return n, b.Bytes(), back
}

// Every real session (Gemini CLI's too), imported, is written in both
// formats: in its own, every message line comes back with the same role
// and text; in the other, the conversation does, in order; the ids hold
// together in both.
func TestWriteNativeRealSessions(t *testing.T) {
	for _, df := range dataFiles(t) {
		t.Run(filepath.Base(df.path), func(t *testing.T) {
			st, err := filestore.Open(t.TempDir(), filestore.Options{})
			if err != nil {
				t.Fatal(err)
			}
			r := runOne(t, st, df.path)
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			s, err := st.Session(r.Name)
			if err != nil {
				t.Fatal(err)
			}
			src := branchMessages(t, s)
			if len(conversation(t, src)) == 0 {
				t.Skip("no conversation in the session (a Gemini CLI resume file of only restored history)")
			}
			meta, _ := s.Meta()
			origin, _ := OriginOf(meta)
			for _, f := range NativeFormats {
				t.Run(string(f), func(t *testing.T) {
					n, data, back := writeNative(t, s, f)
					if f == df.format {
						want := 0
						for _, raw := range src {
							if !storedEvent(raw) {
								want++
							}
						}
						if len(back.Messages) != want {
							t.Errorf("%d messages read back, want the %d stored", len(back.Messages), want)
						}
					}
					sameConversation(t, conversation(t, src), conversation(t, back.Messages))
					switch f {
					case ClaudeCode:
						checkClaudeChain(t, data, n.ID)
					case Codex:
						checkCodexIDs(t, data, n.ID, origin)
					}
					if df.format == Codex && f == ClaudeCode && bytes.Contains(mustRead(t, df.path), []byte(`"type":"reasoning"`)) &&
						n.LeftOut["reasoning items"] == 0 {
						t.Errorf("reasoning items are not counted as left out: %v", n.LeftOut)
					}
				})
			}
		})
	}
}

// sameConversation asserts that got says what want does, in order.
func sameConversation(t *testing.T, want, got []said) {
	t.Helper()
	if len(want) == 0 {
		t.Fatal("the source has no conversation to compare")
	}
	if len(got) != len(want) {
		t.Errorf("%d messages of conversation read back, want %d:\ngot  %q\nwant %q", len(got), len(want), got, want)
		return
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("message %d: got %q, want %q", i, got[i], want[i])
		}
	}
}

// checkClaudeChain asserts the ids of a written Claude Code file: the new
// sessionId on every line, a fresh uuid on each, each line's parentUuid
// the line before it (null first), and every tool_result answering a
// tool_use before it.
func checkClaudeChain(t *testing.T, data []byte, id string) {
	t.Helper()
	parent := ""
	seen := map[string]bool{}
	calls := map[string]bool{}
	for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		var l struct {
			SessionID  string  `json:"sessionId"`
			UUID       string  `json:"uuid"`
			ParentUUID *string `json:"parentUuid"`
			Message    struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if l.SessionID != id {
			t.Errorf("line %d: sessionId %q, want %q", i+1, l.SessionID, id)
		}
		if l.UUID == "" || seen[l.UUID] {
			t.Errorf("line %d: uuid %q is empty or not fresh", i+1, l.UUID)
		}
		seen[l.UUID] = true
		if (parent == "" && l.ParentUUID != nil) || (parent != "" && (l.ParentUUID == nil || *l.ParentUUID != parent)) {
			t.Errorf("line %d: parentUuid %v, want %q", i+1, l.ParentUUID, parent)
		}
		parent = l.UUID
		var blocks []struct {
			Type      string `json:"type"`
			ID        string `json:"id"`
			ToolUseID string `json:"tool_use_id"`
		}
		json.Unmarshal(l.Message.Content, &blocks)
		for _, b := range blocks {
			switch b.Type {
			case "tool_use":
				calls[b.ID] = true
			case "tool_result":
				if !calls[b.ToolUseID] {
					t.Errorf("line %d: tool_result for %q, which no tool_use before it has", i+1, b.ToolUseID)
				}
			}
		}
	}
	if parent == "" {
		t.Error("no line written")
	}
}

// checkCodexIDs asserts the ids of a written rollout: a session_meta
// first with the new id, forked_from_id naming the Codex session it came
// from, the old id nowhere else; every function_call_output answering a
// call before it.
func checkCodexIDs(t *testing.T, data []byte, id string, origin Origin) {
	t.Helper()
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	var first struct {
		Type    string `json:"type"`
		Payload struct {
			ID     string `json:"id"`
			Forked string `json:"forked_from_id"`
		} `json:"payload"`
	}
	if err := json.Unmarshal(lines[0], &first); err != nil || first.Type != "session_meta" || first.Payload.ID != id {
		t.Fatalf("first line is not a session_meta of %s (%v): %.300s", id, err, lines[0])
	}
	if origin.Format == Codex {
		if first.Payload.Forked != origin.ID {
			t.Errorf("forked_from_id %q, want the source's %q", first.Payload.Forked, origin.ID)
		}
		if n := bytes.Count(data, []byte(origin.ID)); n != 1 {
			t.Errorf("the old id %s is in the file %d times, want once (forked_from_id)", origin.ID, n)
		}
	} else if first.Payload.Forked != "" {
		t.Errorf("forked_from_id %q for a session not from Codex", first.Payload.Forked)
	}
	calls := map[string]bool{}
	for i, line := range lines[1:] {
		var l struct {
			Type    string `json:"type"`
			Payload struct {
				Type   string `json:"type"`
				CallID string `json:"call_id"`
			} `json:"payload"`
		}
		json.Unmarshal(line, &l)
		if l.Type == "session_meta" {
			t.Errorf("line %d: a second session_meta", i+2)
		}
		switch l.Payload.Type {
		case "function_call", "custom_tool_call", "local_shell_call":
			calls[l.Payload.CallID] = true
		case "function_call_output", "custom_tool_call_output":
			if !calls[l.Payload.CallID] {
				t.Errorf("line %d: output for %q, which no call before it made", i+2, l.Payload.CallID)
			}
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A session made in sessfs (no source lines) is written from its content
// in both formats: prompts, answers, a tool call in OpenAI's chat shape
// and its result, a compaction's summary; a system prompt is left out and
// counted.
func TestWriteNativeMadeInSessfs(t *testing.T) {
	st, err := filestore.Open(t.TempDir(), filestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := st.Create("made", backing.Meta{Title: "made", Cwd: "/home/dev/project"})
	if err != nil {
		t.Fatal(err)
	}
	msgs := []string{
		`{"role":"system","content":"You are terse."}`,
		`{"role":"user","context":"compaction","content":"Summary: the user asked about files."}`,
		`{"role":"user","content":"List the files <here> & say"}`,
		`{"role":"assistant","content":"","tool_calls":[{"id":"call_1","type":"function","function":{"name":"shell","arguments":"{\"cmd\":\"ls\"}"}}]}`,
		`{"role":"tool","tool_call_id":"call_1","content":"README.md\ncalc.py"}`,
		`{"role":"assistant","content":[{"type":"text","text":"Two files."}]}`,
		`{"role":"user","content":"Thanks"}`,
	}
	var raw [][]byte
	for _, m := range msgs {
		raw = append(raw, []byte(m))
	}
	if err := s.AppendID("", raw); err != nil {
		t.Fatal(err)
	}
	want := []said{{"user", "List the files <here> & say"}, {"assistant", "Two files."}, {"user", "Thanks"}}
	for _, f := range NativeFormats {
		t.Run(string(f), func(t *testing.T) {
			n, data, back := writeNative(t, s, f)
			sameConversation(t, want, conversation(t, back.Messages))
			if n.LeftOut["system messages"] != 1 || n.LeftOut.String() != "1 system message" {
				t.Errorf("left out: %q, want the system prompt counted", n.LeftOut)
			}
			// The summary is kept, as text the user did not type: the
			// read-back marks it as context, so it is not in want.
			if !bytes.Contains(data, []byte("Summary: the user asked about files.")) {
				t.Errorf("the compaction's summary is not in the file:\n%s", data)
			}
			if f == ClaudeCode && !bytes.Contains(data, []byte(`"isCompactSummary":true`)) {
				t.Errorf("the summary is not marked isCompactSummary:\n%s", data)
			}
			if !bytes.Contains(data, []byte(`<here> &`)) {
				t.Errorf("<, > and & are escaped in the file:\n%s", data)
			}
			switch f {
			case ClaudeCode:
				checkClaudeChain(t, data, n.ID)
				if !bytes.Contains(data, []byte(`"tool_use","id":"call_1","name":"shell","input":{"cmd":"ls"}`)) ||
					!bytes.Contains(data, []byte(`"tool_use_id":"call_1"`)) {
					t.Errorf("the call and its result are not a tool_use and its tool_result:\n%s", data)
				}
			case Codex:
				checkCodexIDs(t, data, n.ID, Origin{})
				if !bytes.Contains(data, []byte(`"arguments":"{\"cmd\":\"ls\"}","call_id":"call_1"`)) {
					t.Errorf("the call is not a function_call with its arguments:\n%s", data)
				}
				// The prompts read as typed: the turns are the user's.
				if back.Title != "List the files <here> & say" {
					t.Errorf("title %q: the first prompt does not read as typed", back.Title)
				}
			}
		})
	}
}

// NativePath puts a Claude Code session in the folder of its cwd, links
// resolved, every character not a letter or digit as "-"; a Codex rollout
// under sessions/ by day, named for its time and id; each in the folder
// the environment names, else in the home.
func TestNativePath(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "my.project")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"CLAUDE_CONFIG_DIR": "/cfg/claude"}
	getenv := func(k string) string { return env[k] }
	got, err := NativePath(Native{Format: ClaudeCode, ID: "abc", Cwd: link}, getenv, "/home/u")
	want := filepath.Join("/cfg/claude/projects", claudeProjectChars.ReplaceAllString(real, "-"), "abc.jsonl")
	if err != nil || got != want || strings.Contains(filepath.Base(filepath.Dir(got)), "my") {
		t.Errorf("Claude Code: %q, %v; want %q", got, err, want)
	}
	created := time.Date(2026, 11, 24, 8, 5, 9, 0, time.Local)
	got, err = NativePath(Native{Format: Codex, ID: "abc", Created: created}, getenv, "/home/u")
	if want := "/home/u/.codex/sessions/2026/11/24/rollout-2026-11-24T08-05-09-abc.jsonl"; err != nil || got != want {
		t.Errorf("Codex: %q, %v; want %q", got, err, want)
	}
	if _, err := NativePath(Native{Format: Gemini}, getenv, "/home/u"); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("Gemini: %v, want ErrUnknownFormat", err)
	}
}
