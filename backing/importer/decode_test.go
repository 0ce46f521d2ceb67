package importer

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessfs/sessfs/integration/realdata"

	"github.com/sessfs/sessfs/backing"
)

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

func mustDecode(t *testing.T, in string, f Format) *Session {
	t.Helper()
	s, err := Decode(strings.NewReader(in), f)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range s.Messages {
		if err := backing.ValidateMessage(m); err != nil {
			t.Errorf("message %d: %v", i, err)
		}
	}
	return s
}

func field(t *testing.T, msg []byte, key string) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(msg, &m); err != nil {
		t.Fatal(err)
	}
	return string(m[key])
}

func TestBadLineNamesItsNumber(t *testing.T) {
	for _, f := range []Format{ClaudeCode, Codex} {
		in := lines(`{"type":"summary","summary":"x"}`, ``, `{"type":"user", oops`)
		_, err := Decode(strings.NewReader(in), f)
		var le *LineError
		if !errors.As(err, &le) || le.Line != 3 {
			t.Errorf("%s: error %v, want one for line 3", f, err)
		}
	}
}

// A line that is valid JSON but not valid UTF-8 (in its content, or
// anywhere else of it: the line is kept) is refused by its number, as
// the store would refuse its message: build checks what it makes without
// scanning it again (backing.CheckBuilt).
func TestLineNotUTF8(t *testing.T) {
	for _, c := range []struct {
		f    Format
		line string
	}{
		{ClaudeCode, `{"type":"user","uuid":"a","message":{"role":"user","content":"caf` + "\xe9" + `"}}`},
		{ClaudeCode, `{"type":"user","uuid":"a","cwd":"/caf` + "\xe9" + `","message":{"role":"user","content":"hi"}}`},
		{Codex, `{"type":"response_item","payload":{"type":"message","role":"user","content":"caf` + "\xe9" + `"}}`},
	} {
		in := lines(`{"type":"summary","summary":"x"}`, c.line)
		_, err := Decode(strings.NewReader(in), c.f)
		var le *LineError
		if !errors.As(err, &le) || le.Line != 2 || !strings.Contains(err.Error(), "UTF-8") {
			t.Errorf("%s %s: error %v, want one of UTF-8 for line 2", c.f, c.line, err)
		}
	}
}

func TestUnknownFormat(t *testing.T) {
	if _, err := Decode(strings.NewReader(""), "aider"); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("error %v", err)
	}
}

func TestEmptyLinesSkippedCRLFKept(t *testing.T) {
	in := "\n" + `{"type":"user","uuid":"a","timestamp":"2026-01-02T03:04:05Z","message":{"role":"user","content":"hi"}}` +
		"\r\n   \n" + `{"type":"queue-operation"}`
	s := mustDecode(t, in, ClaudeCode)
	if len(s.Messages) != 1 || len(s.Events) != 1 || s.EventAt[0] != 1 {
		t.Fatalf("%d messages, %d events at %v", len(s.Messages), len(s.Events), s.EventAt)
	}
	back, err := SourceLine(s.Messages[0])
	if err != nil || !strings.HasSuffix(string(back), "}\r") {
		t.Errorf("SourceLine = %q, %v: want the line with its \\r", back, err)
	}
	if !s.Created.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) {
		t.Errorf("created %v", s.Created)
	}
}

func TestClaudeLines(t *testing.T) {
	in := lines(
		`{"type":"system","subtype":"compact_boundary","content":"Conversation compacted","uuid":"s1","timestamp":"2026-01-01T00:00:00Z"}`,
		`{"type":"system","subtype":"api_error","uuid":"s2"}`,
		`{"type":"assistant","uuid":"a1","sessionId":"sid","cwd":"/w","version":"2.1.14","gitBranch":"main","message":{"id":"m","role":"assistant","model":"claude-opus-4-5","content":[{"type":"text","text":"<b>&"}]}}`,
		`{"type":"assistant","uuid":"a2","message":{"id":"m","role":"assistant","model":"<synthetic>","content":[{"type":"tool_use","id":"t","name":"x","input":{}}]}}`,
		`{"type":"user","uuid":"u1","timestamp":7,"message":"error"}`,
		`{"type":"user","uuid":9,"message":{"role":"user","content":"no string uuid"}}`,
	)
	s := mustDecode(t, in, ClaudeCode)
	if len(s.Messages) != 4 || len(s.Events) != 2 {
		t.Fatalf("%d messages, %d events", len(s.Messages), len(s.Events))
	}
	if got := field(t, s.Messages[0], "role"); got != `"system"` {
		t.Errorf("system line role %s", got)
	}
	if got := field(t, s.Messages[0], "content"); got != `"Conversation compacted"` {
		t.Errorf("system line content %s", got)
	}
	// Marshal would have written \u003cb\u003e: the bytes must be the line's.
	if !strings.Contains(string(s.Messages[1]), `"text":"<b>&"`) {
		t.Errorf("source re-encoded: %s", s.Messages[1])
	}
	if id := field(t, s.Messages[3], "id"); id != "" {
		t.Errorf("a non-string uuid became id %s", id)
	}
	if s.SourceID != "sid" || s.Cwd != "/w" || s.Model != "claude-opus-4-5" || s.Provider != "anthropic" ||
		string(s.Extra["version"]) != `"2.1.14"` || string(s.Extra["gitBranch"]) != `"main"` {
		t.Errorf("meta %+v", s)
	}
}

func TestCodexLines(t *testing.T) {
	in := lines(
		`{"timestamp":"2026-02-23T11:41:32.239Z","type":"session_meta","payload":{"id":"sid","timestamp":"2026-02-23T11:41:04.709Z","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.104.0","source":"cli","model_provider":"openai","forked_from_id":"parent","git":{"branch":"main"}}}`,
		`{"timestamp":"t1","type":"turn_context","payload":{"model":"gpt-5"}}`,
		`{"timestamp":"t2","type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"rules"}]}}`,
		`{"timestamp":"t3","type":"event_msg","payload":{"type":"user_message","message":"Fix the flaky test\nplease"}}`,
		`{"timestamp":"t4","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>x</environment_context>"}]}}`,
		`{"timestamp":"t5","type":"response_item","payload":{"type":"reasoning","summary":[],"content":null,"encrypted_content":"e"}}`,
		`{"timestamp":"t6","type":"response_item","payload":{"type":"custom_tool_call","status":"completed","call_id":"c1","name":"apply_patch","input":"*** Begin Patch"}}`,
		`{"timestamp":"t7","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c1","output":"ok"}}`,
		`{"timestamp":"t8","type":"response_item","payload":{"type":"ghost_snapshot","ghost_commit":{}}}`,
		`{"timestamp":"t9","type":"compacted","payload":{"message":"summary"}}`,
		`{"timestamp":"t10","type":"turn_context","payload":{"model":"gpt-5-codex"}}`,
	)
	s := mustDecode(t, in, Codex)
	want := []struct{ role, content string }{
		{`"developer"`, `[{"type":"input_text","text":"rules"}]`},
		{`"user"`, `[{"type":"input_text","text":"<environment_context>x</environment_context>"}]`},
		{`"assistant"`, `[{"type":"reasoning","summary":[],"content":null,"encrypted_content":"e"}]`},
		{`"assistant"`, `[{"type":"custom_tool_call","status":"completed","call_id":"c1","name":"apply_patch","input":"*** Begin Patch"}]`},
		{`"tool"`, `[{"type":"custom_tool_call_output","call_id":"c1","output":"ok"}]`},
		{`"system"`, `"summary"`}, // a compaction: a marker, not an event
	}
	if len(s.Messages) != len(want) || len(s.Events) != 5 {
		t.Fatalf("%d messages, %d events", len(s.Messages), len(s.Events))
	}
	for i, w := range want {
		if r, c := field(t, s.Messages[i], "role"), field(t, s.Messages[i], "content"); r != w.role || c != w.content {
			t.Errorf("message %d: %s %s, want %s %s", i, r, c, w.role, w.content)
		}
		if id := field(t, s.Messages[i], "id"); id != "" {
			t.Errorf("message %d has id %s", i, id)
		}
	}
	if s.SourceID != "sid" || s.Cwd != "/w" || s.Provider != "openai" || s.Model != "gpt-5-codex" ||
		s.Title != "Fix the flaky test please" ||
		!s.Created.Equal(time.Date(2026, 2, 23, 11, 41, 4, 709e6, time.UTC)) {
		t.Errorf("meta %+v", s)
	}
	for k, v := range map[string]string{"cli_version": `"0.104.0"`, "originator": `"codex_cli_rs"`,
		"source": `"cli"`, "forked_from_id": `"parent"`, "git": `{"branch":"main"}`} {
		if string(s.Extra[k]) != v {
			t.Errorf("extra %s = %s, want %s", k, s.Extra[k], v)
		}
	}
}

// Without the UI's user_message event the title is the first user text
// that is not one of Codex's own preambles.
func TestCodexTitleFallback(t *testing.T) {
	in := lines(
		`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"# AGENTS.md instructions for /w"}]}}`,
		`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Add a README"}]}}`,
	)
	if s := mustDecode(t, in, Codex); s.Title != "Add a README" {
		t.Errorf("title %q", s.Title)
	}
}

// PeekID finds the id Decode finds, for every real session.
func TestPeekID(t *testing.T) {
	files, _ := realdata.Files()
	if len(files) == 0 {
		t.Skip("no real sessions beside the repository")
	}
	for _, f := range files {
		s, err := DecodeFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fh, _ := os.Open(f)
		id, err := PeekID(fh, s.Format)
		fh.Close()
		if err != nil || id != s.SourceID {
			t.Errorf("%s: PeekID = %q, %v; Decode found %q", filepath.Base(f), id, err, s.SourceID)
		}
	}
}

// A line that is not valid UTF-8 is refused as it is decoded, with its
// number, whatever it becomes: a message, or an event (which the store
// would refuse only when the import stores it), or a message whose source
// is kept whole ("source_line", where encoding/json would have put U+FFFD
// for the byte). FuzzDecode found both in Gemini documents.
func TestDecodeRefusesInvalidUTF8(t *testing.T) {
	for _, tc := range []struct {
		in string
		f  Format
	}{
		{lines(`{"type":"user","message":{"role":"user","content":"x"}}`, "{\"type\":\"summary\",\"summary\":\"a\xca\"}"), ClaudeCode},
		{lines(`{"timestamp":"2025-01-01T00:00:00Z","type":"session_meta","payload":{"id":"c"}}`, "{\"type\":\"x\xca\"}"), Codex},
		{"{\"\xca\":\"\",\n\"messages\":[]}\n", Gemini},
		{"{\"\x9a\":\"\",\"messages\":[{\"id\":\"0\",\"type\":\"user\",\"content\":\"0\"}]} \n", Gemini}, // one part, a message: its source kept whole
	} {
		_, err := Decode(strings.NewReader(tc.in), tc.f)
		var le *LineError
		if !errors.Is(err, backing.ErrInvalid) || !errors.As(err, &le) || le.Line < 1 {
			t.Errorf("%s: %v, want a line's invalid UTF-8", tc.f, err)
		}
	}
}
