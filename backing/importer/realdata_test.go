package importer

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/integration/realdata"
)

type dataFile struct {
	path   string
	format Format
}

// dataFiles are the real sessions written by the agents, each with the
// format of its agent; every agent must have some.
func dataFiles(t *testing.T) []dataFile {
	t.Helper()
	if realdata.Shared() == "" {
		t.Skip("no real sessions beside the repository")
	}
	formats := map[string]Format{"claude-code": ClaudeCode, "codex": Codex, "gemini": Gemini}
	var out []dataFile
	for _, agent := range realdata.Agents {
		paths, err := realdata.Files(agent)
		if err != nil {
			t.Fatal(err)
		}
		if len(paths) == 0 {
			t.Fatalf("no sessions of %s", agent)
		}
		for _, p := range paths {
			out = append(out, dataFile{p, formats[agent]})
		}
	}
	return out
}

// rawLines splits a file the plain way: non-empty lines without '\n'.
func rawLines(t *testing.T, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, l := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// expected says what a line should become, worked out here from the
// format's description with generic JSON values, not with the package's
// helpers: isMsg, the role, and the Claude Code uuid.
func expected(f Format, line []byte) (isMsg bool, role, uuid string) {
	var v any
	if json.Unmarshal(line, &v) != nil {
		return false, "", ""
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return false, "", ""
	}
	hasContent := func(c any) bool {
		switch c.(type) {
		case string, []any:
			return true
		}
		return false
	}
	typ, _ := obj["type"].(string)
	if f == ClaudeCode {
		if typ != "user" && typ != "assistant" && typ != "system" {
			return false, "", ""
		}
		uuid, _ = obj["uuid"].(string)
		var content any
		role = typ
		if msg, ok := obj["message"].(map[string]any); ok {
			content = msg["content"]
			if r, _ := msg["role"].(string); r != "" {
				role = r
			}
		} else if typ == "system" {
			content = obj["content"]
		}
		return hasContent(content), role, uuid
	}
	p, _ := obj["payload"].(map[string]any)
	if typ == "compacted" {
		return true, "system", "" // a compaction marker
	}
	if typ != "response_item" || p == nil {
		return false, "", ""
	}
	switch p["type"] {
	case "message":
		role, _ = p["role"].(string)
		return role != "" && hasContent(p["content"]), role, ""
	case "reasoning", "function_call", "custom_tool_call", "local_shell_call", "web_search_call":
		return true, "assistant", ""
	case "function_call_output", "custom_tool_call_output":
		return true, "tool", ""
	}
	return false, "", ""
}

type geminiExpect struct {
	isMsg bool
	role  string
}

// geminiExpected says what each line of a Gemini CLI JSONL file should
// become, from the format's description: metadata and {"$set"} lines are
// events; a user or gemini line is a message the first time its id
// shows, and again only if it adds a tool call or changes the content;
// a user line of only function responses is a tool message.
func geminiExpected(lines [][]byte) []geminiExpect {
	out := make([]geminiExpect, len(lines))
	content := map[string]string{}
	calls := map[string]bool{}
	for i, line := range lines {
		var l struct {
			ID        string
			Type      string
			Content   json.RawMessage
			ToolCalls []struct{ ID string }
		}
		if json.Unmarshal(line, &l) != nil || l.ID == "" || (l.Type != "user" && l.Type != "gemini") {
			continue
		}
		prev, seen := content[l.ID]
		adds := !seen || prev != string(l.Content)
		content[l.ID] = string(l.Content)
		for _, c := range l.ToolCalls {
			if !calls[l.ID+"/"+c.ID] {
				adds, calls[l.ID+"/"+c.ID] = true, true
			}
		}
		if !adds {
			continue
		}
		var parts []map[string]any
		json.Unmarshal(l.Content, &parts)
		role := "user"
		switch {
		case l.Type == "gemini":
			role = "assistant"
		case len(parts) > 0 && parts[0]["functionResponse"] != nil:
			role = "tool"
		}
		out[i] = geminiExpect{true, role}
	}
	return out
}

type stored struct {
	ID         *string         `json:"id"`
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	TS         *string         `json:"ts"`
	Source     json.RawMessage `json:"source"`
	SourceLine *string         `json:"source_line"`
	SourceHole *string         `json:"source_hole"`
}

func TestRealSessions(t *testing.T) {
	for _, df := range dataFiles(t) {
		t.Run(filepath.Base(df.path), func(t *testing.T) { checkFile(t, df) })
	}
}

func checkFile(t *testing.T, df dataFile) {
	fh, err := os.Open(df.path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Detect(fh)
	fh.Close()
	if err != nil || got != df.format {
		t.Fatalf("Detect = %q, %v; want %q", got, err, df.format)
	}
	s, err := DecodeFile(df.path)
	if err != nil {
		t.Fatal(err)
	}
	lines := rawLines(t, df.path)
	var gem []geminiExpect
	if df.format == Gemini {
		gem = geminiExpected(lines)
	}
	// A Gemini file a --resume started and left without a prompt has no title.
	titled := df.format != Gemini || slices.ContainsFunc(gem, func(e geminiExpect) bool { return e.role == "user" })
	if s.Format != df.format || s.SourceID == "" || (titled && s.Title == "") || s.Created.IsZero() {
		t.Errorf("format %q, source id %q, title %q, created %v: want all set",
			s.Format, s.SourceID, s.Title, s.Created)
	}
	if n := len(s.Messages) + len(s.Events); n != len(lines) {
		t.Fatalf("%d messages + %d events = %d, file has %d non-empty lines",
			len(s.Messages), len(s.Events), n, len(lines))
	}
	if len(s.EventAt) != len(s.Events) {
		t.Fatalf("%d EventAt for %d events", len(s.EventAt), len(s.Events))
	}

	wantRoles, gotRoles := map[string]int{}, map[string]int{}
	ids := map[string]bool{}
	var lineUUIDs []string // uuids of every user/assistant line, message or not
	mi, ei, viaString := 0, 0, 0
	for n, line := range lines {
		isMsg, role, uuid := expected(df.format, line)
		if gem != nil {
			isMsg, role = gem[n].isMsg, gem[n].role
		}
		if typ := typeOf(line); df.format == ClaudeCode && uuid != "" &&
			(typ == "user" || typ == "assistant") {
			lineUUIDs = append(lineUUIDs, uuid)
		}
		if !isMsg {
			if ei >= len(s.Events) || !bytes.Equal(s.Events[ei], line) {
				t.Fatalf("line %d should be event %d, unchanged", n+1, ei)
			}
			if s.EventAt[ei] != mi {
				t.Errorf("event %d at %d, want %d", ei, s.EventAt[ei], mi)
			}
			ei++
			continue
		}
		wantRoles[role]++
		if mi >= len(s.Messages) {
			t.Fatalf("line %d should be message %d; there are %d", n+1, mi, len(s.Messages))
		}
		raw := s.Messages[mi]
		mi++
		if err := backing.ValidateMessage(raw); err != nil {
			t.Errorf("line %d: %v", n+1, err)
		}
		var m stored
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		gotRoles[m.Role]++
		if m.Role != role {
			t.Errorf("line %d: role %q, want %q", n+1, m.Role, role)
		}
		checkSource(t, n+1, raw, m, line, df.format)
		if m.SourceLine != nil {
			viaString++
		}
		if ts := timestampOf(line); ts != "" && (m.TS == nil || *m.TS != ts) {
			t.Errorf("line %d: ts %v, want %q", n+1, m.TS, ts)
		}
		switch df.format {
		case ClaudeCode:
			if uuid != "" && (m.ID == nil || *m.ID != uuid) {
				t.Errorf("line %d: id %v, want the uuid %q", n+1, m.ID, uuid)
			}
			if m.ID != nil {
				ids[*m.ID] = true
			}
		case Codex:
			if m.ID != nil {
				t.Errorf("line %d: Codex message has id %q", n+1, *m.ID)
			}
		}
	}
	if !maps.Equal(gotRoles, wantRoles) {
		t.Errorf("roles %v, want %v", gotRoles, wantRoles)
	}
	for _, u := range lineUUIDs {
		if !ids[u] {
			t.Errorf("uuid %s of a user/assistant line is no message's id", u)
		}
	}
	if df.format == Codex {
		checkCallIDs(t, s, lines)
	}
	t.Logf("%s: %d messages %v, %d events, %d kept as source_line; title %q",
		filepath.Base(df.path), len(s.Messages), gotRoles, len(s.Events), viaString, s.Title)
}

// checkSource: the line is embedded byte for byte, and can be regenerated
// exactly from the message as the store will keep it (compacted).
func checkSource(t *testing.T, n int, raw []byte, m stored, line []byte, f Format) {
	t.Helper()
	back, err := SourceLine(raw)
	if err != nil || !bytes.Equal(back, line) {
		t.Errorf("line %d: SourceLine is not the line's bytes (%v)", n, err)
	}
	var c bytes.Buffer
	if err := json.Compact(&c, raw); err != nil {
		t.Fatal(err)
	}
	back, err = SourceLine(c.Bytes())
	if err != nil || !bytes.Equal(back, line) {
		t.Errorf("line %d: SourceLine after compaction differs (%v)", n, err)
	}
	var lc bytes.Buffer
	if err := json.Compact(&lc, line); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(lc.Bytes(), line) { // hand-made, not the agents' own
		return
	}
	switch {
	case m.SourceLine != nil:
		t.Errorf("line %d: a compact line is kept whole as source_line", n)
	case m.SourceHole == nil && !bytes.Equal(m.Source, line):
		t.Errorf("line %d: source is not the line's bytes", n)
	case m.SourceHole != nil && len(m.Source) > len(line)-len(m.Content)+6:
		// "null" where the content was (a block's brackets are not cut).
		t.Errorf("line %d: slim source of %d bytes for a line of %d and content of %d", n, len(m.Source), len(line), len(m.Content))
	case m.SourceHole == nil && f != Gemini && len(m.Content) >= minHole:
		// Claude Code's and Codex's contents are values of their lines.
		t.Errorf("line %d: content of %d bytes stored twice", n, len(m.Content))
	}
}

// checkCallIDs: every function_call's call_id is in some message.
func checkCallIDs(t *testing.T, s *Session, lines [][]byte) {
	t.Helper()
	have := map[string]bool{}
	for _, raw := range s.Messages {
		var m struct {
			Content []map[string]any `json:"content"`
		}
		json.Unmarshal(raw, &m) // string contents leave it empty
		for _, b := range m.Content {
			if id, ok := b["call_id"].(string); ok {
				have[id] = true
			}
		}
	}
	calls := 0
	for _, line := range lines {
		var l struct {
			Payload struct {
				Type   string `json:"type"`
				CallID string `json:"call_id"`
			} `json:"payload"`
		}
		if json.Unmarshal(line, &l) != nil || l.Payload.Type != "function_call" {
			continue
		}
		calls++
		if l.Payload.CallID == "" || !have[l.Payload.CallID] {
			t.Errorf("call_id %q of a function_call is in no message", l.Payload.CallID)
		}
	}
	if calls == 0 && bytes.Contains(bytes.Join(lines, nil), []byte(`"function_call"`)) {
		t.Error("found no function_call lines to check")
	}
}

func typeOf(line []byte) string {
	var l struct {
		Type any `json:"type"`
	}
	json.Unmarshal(line, &l)
	s, _ := l.Type.(string)
	return s
}

func timestampOf(line []byte) string {
	var l struct {
		Timestamp any `json:"timestamp"`
	}
	json.Unmarshal(line, &l)
	s, _ := l.Timestamp.(string)
	return s
}
