package importer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

// A Gemini CLI JSONL session as 0.61 writes it, cut down: metadata, the
// session context in a $set, a prompt, a reply written again with its tool
// call, the function response, the answer, and a $set restoring the
// history (a resume).
var geminiLines = []string{
	`{"sessionId":"s-1","projectHash":"1afbf223bb0b58ba08766ec87173ebd68e0507d66983531a95b52ff9b529c7db","startTime":"2026-01-02T03:04:05.000Z","lastUpdated":"2026-01-02T03:04:05.000Z","kind":"main"}`,
	`{"$set":{"messages":[{"id":"c","timestamp":"2026-01-02T03:04:05.000Z","type":"user","content":[{"text":"<session_context>\n- **Workspace Directories:**\n  - /home/dev/project\n</session_context>"}]}]}}`,
	`{"id":"u1","timestamp":"2026-01-02T03:04:06.000Z","type":"user","content":[{"text":"List the files"}]}`,
	`{"id":"g1","timestamp":"2026-01-02T03:04:07.000Z","type":"gemini","content":"Let me look.","tokens":{"input":20,"output":8,"cached":5,"thoughts":2,"tool":0,"total":30},"model":"gemini-2.5-pro"}`,
	`{"$set":{"lastUpdated":"2026-01-02T03:04:07.000Z"}}`,
	`{"id":"g1","timestamp":"2026-01-02T03:04:07.000Z","type":"gemini","content":"Let me look.","tokens":{"input":20,"output":8,"cached":5,"thoughts":2,"tool":0,"total":30},"model":"gemini-2.5-pro","toolCalls":[{"id":"call-1","name":"list_directory","args":{"dir_path":"."},"status":"success"}]}`,
	`{"id":"g1","timestamp":"2026-01-02T03:04:07.000Z","type":"gemini","content":"Let me look.","tokens":{"input":20,"output":8,"cached":5,"thoughts":2,"tool":0,"total":30},"model":"gemini-2.5-pro","toolCalls":[{"id":"call-1","name":"list_directory","args":{"dir_path":"."},"status":"success"}]}`,
	`{"id":"r1","timestamp":"2026-01-02T03:04:08.000Z","type":"user","content":[{"functionResponse":{"id":"call-1","name":"list_directory","response":{"output":"a.txt"}}}]}`,
	`{"id":"g2","timestamp":"2026-01-02T03:04:09.000Z","type":"gemini","content":"It holds a.txt.","tokens":{"input":30,"output":4,"cached":0,"thoughts":0,"tool":0,"total":34},"model":"gemini-2.5-pro"}`,
	`{"$set":{"messages":[{"id":"u1","type":"user","content":[{"text":"List the files"}]},{"id":"g2","type":"gemini","content":[{"text":"It holds a.txt."}]}]}}`,
}

// Each line is one message or one event: a rewrite of a message that adds
// a tool call shows only the call, continuing the reply; one that adds
// nothing, and every $set, is an event. Turns start at what was typed.
func TestGeminiUpserts(t *testing.T) {
	in := strings.Join(geminiLines, "\n") + "\n"
	if f, err := Detect(strings.NewReader(in)); err != nil || f != Gemini {
		t.Fatalf("Detect = %q, %v", f, err)
	}
	s := mustDecode(t, in, Gemini)
	if s.SourceID != "s-1" || s.Title != "List the files" || s.Model != "gemini-2.5-pro" ||
		s.Cwd != "/home/dev/project" || s.Created.Format("15:04:05") != "03:04:05" {
		t.Errorf("session %q title %q model %q cwd %q created %v", s.SourceID, s.Title, s.Model, s.Cwd, s.Created)
	}
	if got := s.EventLine; !equalInts(got, []int{1, 2, 5, 7, 10}) {
		t.Errorf("event lines %v, want 1 2 5 7 10", got)
	}
	type msg struct {
		ID        *string
		Role      string
		Content   json.RawMessage
		Continues bool
		Context   string
	}
	want := []struct {
		role, content string
		id            bool
		continues     bool
	}{
		{"user", `[{"text":"List the files"}]`, true, false},
		{"assistant", `[{"text":"Let me look."}]`, true, false},
		{"assistant", `[{"functionCall":{"id":"call-1","name":"list_directory","args":{"dir_path":"."}}}]`, false, true},
		{"tool", `[{"functionResponse":{"id":"call-1","name":"list_directory","response":{"output":"a.txt"}}}]`, true, false},
		{"assistant", `[{"text":"It holds a.txt."}]`, true, false},
	}
	if len(s.Messages) != len(want) {
		t.Fatalf("%d messages, want %d", len(s.Messages), len(want))
	}
	prompts := 0
	for i, raw := range s.Messages {
		var m msg
		json.Unmarshal(raw, &m)
		w := want[i]
		if m.Role != w.role || string(m.Content) != w.content || (m.ID != nil) != w.id || m.Continues != w.continues {
			t.Errorf("message %d: %s", i, raw)
		}
		if backing.IsPrompt(raw) {
			prompts++
		}
	}
	if prompts != 1 {
		t.Errorf("%d prompts, want 1", prompts)
	}
}

// Usage counts a message's tokens once, however often it was written.
func TestGeminiUsageOnce(t *testing.T) {
	s := mustDecode(t, strings.Join(geminiLines, "\n")+"\n", Gemini)
	lines, err := s.StoreLines()
	if err != nil {
		t.Fatal(err)
	}
	st := backing.NewTally().Stream("")
	var sum backing.Usage
	for _, l := range lines {
		sum = sum.Add(st.Add(l).Usage)
	}
	// g1: input 20 of which 5 cached, output 8 + 2 thoughts; g2: 30 and 4.
	want := backing.Usage{Input: 15 + 30, CacheRead: 5, Output: 10 + 4, Reasoning: 2}
	if sum != want {
		t.Errorf("usage %+v, want %+v", sum, want)
	}
}

// A source that grew is imported again for the lines it gained only, and
// gives the file back byte for byte. The file a --resume starts and
// leaves with no message is kept apart: see gemini_resume_test.go.
func TestGeminiGrowsAndResumeFile(t *testing.T) {
	st, err := filestore.Open(t.TempDir(), filestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "chats")
	os.Mkdir(dir, 0o755)
	path := filepath.Join(dir, "session-2026-01-02T03-04-s1.jsonl")
	half := strings.Join(geminiLines[:5], "\n") + "\n"
	os.WriteFile(path, []byte(half), 0o600)
	r := runOne(t, st, path)
	if r.Err != nil || !r.Stored || r.Name != "list-the-files" {
		t.Fatalf("first import: %+v", r)
	}
	s, _ := st.Session(r.Name)
	v, _ := s.ViewID("")
	if v.Len() != 5 {
		t.Fatalf("%d stored lines, want 5", v.Len())
	}
	whole := strings.Join(geminiLines, "\n") + "\n"
	os.WriteFile(path, []byte(whole), 0o600)
	if r := runOne(t, st, path); r.Err != nil || !r.Stored {
		t.Fatalf("grown import: %+v", r)
	}
	v, _ = s.ViewID("")
	if v.Len() != len(geminiLines) {
		t.Errorf("%d stored lines after growth, want %d", v.Len(), len(geminiLines))
	}
	if data, _, err := Original(s); err != nil || string(data) != whole {
		t.Errorf("Original after growth: %v\n%s", err, data)
	}
}

// The older format: one indented JSON document, rewritten whole. Each
// message is a message, the rest events, and the file comes back byte for
// byte, found in a folder by its name.
func TestGeminiDocument(t *testing.T) {
	doc := `{
  "sessionId": "d-1",
  "projectHash": "abc",
  "startTime": "2025-08-01T10:00:00.000Z",
  "lastUpdated": "2025-08-01T10:01:00.000Z",
  "messages": [
    {
      "id": "m1",
      "timestamp": "2025-08-01T10:00:01.000Z",
      "type": "user",
      "content": "Explain <main.go> & tests"
    },

    {
      "id": "m2",
      "timestamp": "2025-08-01T10:00:05.000Z",
      "type": "gemini",
      "content": "It starts the server.",
      "thoughts": [
        {
          "subject": "Reading",
          "description": "main.go calls serve()",
          "timestamp": "2025-08-01T10:00:03.000Z"
        }
      ],
      "tokens": {"input": 100, "output": 10, "cached": 40, "thoughts": 5, "tool": 0, "total": 115},
      "model": "gemini-2.5-flash",
      "toolCalls": [
        {"id": "rf-1", "name": "read_file", "args": {"path": "main.go"}, "status": "success"}
      ]
    }
  ]
}
`
	dir := filepath.Join(t.TempDir(), "chats")
	os.Mkdir(dir, 0o755)
	path := filepath.Join(dir, "session-2025-08-01T10-00-d1.json")
	os.WriteFile(path, []byte(doc), 0o600)
	os.WriteFile(filepath.Join(dir, "logs.json"), []byte(`[]`), 0o600) // not a session
	if files, err := SourceFiles([]string{dir}); err != nil || len(files) != 1 || files[0] != path {
		t.Fatalf("SourceFiles = %v, %v", files, err)
	}
	if f, err := Detect(strings.NewReader(doc)); err != nil || f != Gemini {
		t.Fatalf("Detect = %q, %v", f, err)
	}
	s := mustDecode(t, doc, Gemini)
	if s.SourceID != "d-1" || s.Title != "Explain <main.go> & tests" || s.Model != "gemini-2.5-flash" {
		t.Errorf("id %q title %q model %q", s.SourceID, s.Title, s.Model)
	}
	if !equalInts(s.MessageLine, []int{7, 13}) || !equalInts(s.EventLine, []int{1, 32}) {
		t.Errorf("message lines %v, event lines %v", s.MessageLine, s.EventLine)
	}
	var reply struct{ Content json.RawMessage }
	json.Unmarshal(s.Messages[1], &reply)
	for _, part := range []string{`"text":"It starts the server."`, `"thought":true`, `"functionCall":{"id":"rf-1"`} {
		if !strings.Contains(string(reply.Content), part) {
			t.Errorf("reply content %s lacks %s", reply.Content, part)
		}
	}

	st, err := filestore.Open(t.TempDir(), filestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := runOne(t, st, dir)
	if r.Err != nil || !r.Stored {
		t.Fatalf("import: %+v", r)
	}
	stored, _ := st.Session(r.Name)
	data, _, err := Original(stored)
	if err == nil {
		data, err = Verify(stored, data)
	}
	if err != nil || string(data) != doc {
		t.Errorf("Original: %v\n%q\nwant\n%q", err, data, doc)
	}
	if r := runOne(t, st, dir); r.Err != nil || r.Stored {
		t.Errorf("unchanged import: %+v", r)
	}
}

func equalInts(a, b []int) bool { return slices.Equal(a, b) }
