package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sessfs/sessfs/integration/realdata"

	"github.com/sessfs/sessfs/backing/filestore"
)

// dataFiles are the real sessions kept beside the repository, and the
// folders that hold them.
func dataFiles(t *testing.T) (folders, files []string) {
	t.Helper()
	files, _ = realdata.Files()
	if len(files) == 0 {
		t.Skip("no real sessions beside the repository")
	}
	return realdata.Folders(), files
}

// sourceCounts computes from a source file, independently of the importer,
// how many messages of each role it holds and how many lines are events,
// the ids that must survive (Claude Code's uuids, Codex's call_ids), and
// the assistant texts a transcript must show exactly as often as the
// source has them as messages.
func sourceCounts(t *testing.T, data []byte) (roles map[string]int, ids []string, texts []string) {
	t.Helper()
	if bytes.Contains(data, []byte(`"projectHash"`)) {
		return geminiCounts(t, data)
	}
	roles = map[string]int{}
	for _, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var l struct {
			Type    string          `json:"type"`
			UUID    string          `json:"uuid"`
			Content json.RawMessage `json:"content"`
			Message struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"message"`
			Payload struct {
				Type    string          `json:"type"`
				Role    string          `json:"role"`
				CallID  string          `json:"call_id"`
				Content json.RawMessage `json:"content"`
			} `json:"payload"`
		}
		json.Unmarshal(line, &l)
		if l.UUID != "" {
			ids = append(ids, l.UUID)
		}
		if l.Payload.CallID != "" {
			ids = append(ids, l.Payload.CallID)
		}
		isContent := func(c json.RawMessage) bool {
			c = bytes.TrimSpace(c)
			return len(c) > 0 && (c[0] == '"' || c[0] == '[')
		}
		role := "event"
		switch {
		case (l.Type == "user" || l.Type == "assistant") && isContent(l.Message.Content):
			role = l.Message.Role
			if role == "" {
				role = l.Type
			}
		case l.Type == "system" && (isContent(l.Message.Content) || (len(bytes.TrimSpace(l.Message.Content)) == 0 && isContent(l.Content))):
			role = "system"
			if l.Message.Role != "" {
				role = l.Message.Role
			}
		case l.Type == "response_item" && l.Payload.Type == "message" && l.Payload.Role != "" && isContent(l.Payload.Content):
			role = l.Payload.Role
		case l.Type == "response_item" && strings.HasSuffix(l.Payload.Type, "_output"):
			role = "tool"
		case l.Type == "response_item" && (l.Payload.Type == "reasoning" || strings.HasSuffix(l.Payload.Type, "_call")):
			role = "assistant"
		}
		roles[role]++
		if role != "assistant" {
			continue
		}
		// The assistant's own text, as Claude Code and Codex store it.
		var blocks []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		json.Unmarshal(l.Message.Content, &blocks)
		if l.Type == "response_item" {
			json.Unmarshal(l.Payload.Content, &blocks)
		}
		for _, b := range blocks {
			if (b.Type == "text" || b.Type == "output_text") && strings.TrimSpace(b.Text) != "" {
				texts = append(texts, strings.TrimSpace(b.Text))
			}
		}
	}
	return roles, ids, texts
}

// geminiCounts is sourceCounts for a Gemini CLI JSONL file, from its
// format: metadata and {"$set"} lines are events; a user or gemini line
// is a message the first time its id shows, and again only when it adds
// a tool call or changes the text (Gemini CLI writes a message again as
// it updates it); a user line of only function responses is a tool
// message. The ids are the messages' and the tool calls'.
func geminiCounts(t *testing.T, data []byte) (roles map[string]int, ids []string, texts []string) {
	t.Helper()
	roles = map[string]int{}
	type seen struct {
		content string
		calls   map[string]bool
	}
	byID := map[string]*seen{}
	for _, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		var l struct {
			ID        string
			Type      string
			Content   json.RawMessage
			ToolCalls []struct{ ID string }
		}
		if json.Unmarshal(line, &l) != nil || l.ID == "" || (l.Type != "user" && l.Type != "gemini") {
			roles["event"]++
			continue
		}
		prev := byID[l.ID]
		if prev == nil {
			prev = &seen{calls: map[string]bool{}}
			ids = append(ids, l.ID)
		}
		adds := byID[l.ID] == nil || prev.content != string(l.Content)
		for _, c := range l.ToolCalls {
			if !prev.calls[c.ID] {
				adds, prev.calls[c.ID] = true, true
				ids = append(ids, c.ID)
			}
		}
		textChanged := prev.content != string(l.Content)
		prev.content = string(l.Content)
		byID[l.ID] = prev
		if !adds {
			roles["event"]++
			continue
		}
		var parts []map[string]json.RawMessage
		json.Unmarshal(l.Content, &parts)
		role := "user"
		switch {
		case l.Type == "gemini":
			role = "assistant"
			var text string
			if json.Unmarshal(l.Content, &text) == nil && strings.TrimSpace(text) != "" && textChanged {
				texts = append(texts, strings.TrimSpace(text))
			}
		case len(parts) > 0 && parts[0]["functionResponse"] != nil:
			role = "tool"
		}
		roles[role]++
	}
	return roles, ids, texts
}

// Every real session imports losslessly: the roles add up to what the
// source holds, every uuid and call_id is stored, the original comes back
// byte for byte, and no assistant text shows more often in the transcript
// than the source has it as a message (Codex repeats each one in a UI
// event, which must not show).
func TestImportLossless(t *testing.T) {
	_, files := dataFiles(t)
	s := newStore(t)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			name := strings.TrimSpace(s.ok("import", f))
			roles, ids, texts := sourceCounts(t, data)

			got := map[string]int{}
			stored := s.ok("export", "--format", "jsonl", name)
			for _, l := range strings.Split(strings.TrimSpace(stored), "\n") {
				var m struct{ Role string }
				if err := json.Unmarshal([]byte(l), &m); err != nil {
					t.Fatalf("stored line %q: %v", l, err)
				}
				got[m.Role]++
			}
			if !mapsEqual(got, roles) {
				t.Errorf("stored roles %v, the source has %v", got, roles)
			}
			for _, id := range ids {
				if !strings.Contains(stored, id) {
					t.Errorf("id %s of the source is not stored", id)
				}
			}
			if orig := s.ok("export", "--format", "original", name); orig != string(data) {
				t.Errorf("export --format original: %d bytes differ from the source's %d", len(orig), len(data))
			}
			md := s.ok("export", name)
			if roles["assistant"] > 0 && len(texts) == 0 {
				t.Errorf("found no assistant text in the source to check the transcript by")
			}
			for _, text := range texts {
				snip := firstLine(text)
				want := 0
				for _, o := range texts {
					if firstLine(o) == snip {
						want++
					}
				}
				// Every answer shows; one long enough not to occur
				// by chance in other text shows no more often than
				// the source has it.
				switch n := strings.Count(md, snip); {
				case n == 0:
					t.Errorf("assistant text %q is not in the transcript", snip)
				case n > want && len(snip) >= 20:
					t.Errorf("assistant text %q shows %d times in the transcript, %d in the source", snip, n, want)
				}
			}
		})
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s[:min(len(s), 60)]
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// A source that grew is brought up to date by a second import, which adds
// only the new lines; one that changed otherwise is refused, untouched.
func TestImportGrowth(t *testing.T) {
	_, files := dataFiles(t)
	var src string
	for _, f := range files {
		if realdata.Agent(f) == "codex" {
			src = f
			break
		}
	}
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	half := bytes.Join(lines[:len(lines)/2], nil)
	path := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.WriteFile(path, half, 0o644); err != nil {
		t.Fatal(err)
	}
	s := newStore(t)
	name := strings.TrimSpace(s.ok("import", path))
	count := func() int { return strings.Count(s.ok("export", "--format", "jsonl", name), "\n") }
	if n := count(); n != len(lines)/2 {
		t.Fatalf("first import stored %d lines of %d", n, len(lines)/2)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if again := strings.TrimSpace(s.ok("import", path)); again != name {
		t.Fatalf("import of the grown source printed %q, want %q", again, name)
	}
	if n, want := count(), bytes.Count(data, []byte("\n")); n != want {
		t.Errorf("after growth: %d lines stored, the source has %d", n, want)
	}
	if orig := s.ok("export", "--format", "original", name); orig != string(data) {
		t.Errorf("export of the grown source differs from it")
	}
	r := s.run("import", path)
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "nothing new") {
		t.Errorf("third import: %v", r)
	}
	// A source rewritten (not grown) is refused and the session kept.
	changed := bytes.Replace(data, []byte(`"type"`), []byte(`"type" `), 1)
	if err := os.WriteFile(path, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	r = s.run("import", path)
	if r.code != 1 || !strings.Contains(r.stderr, "changed since it was imported") {
		t.Errorf("import of a changed source: %v", r)
	}
	if n, want := count(), bytes.Count(data, []byte("\n")); n != want {
		t.Errorf("the refused import changed the session: %d lines, want %d", n, want)
	}
}

// Each export format writes what it says, to standard output or whole to
// a file, and --redact masks a secret in every one.
func TestExportFormats(t *testing.T) {
	s := newStore(t)
	s.ok("new", "s", "--title", "Export <me>")
	s.ok("append", "s", "What is the key? It is AKIAIOSFODNN7EXAMPLE")
	s.ok("append", "--role", "assistant", "s", "Keep it secret.")
	if md, show := s.ok("export", "s"), s.ok("show", "s"); md != show {
		t.Errorf("export (md) differs from show:\n%s\n---\n%s", md, show)
	}
	html := s.ok("export", "--format", "html", "s")
	if !strings.HasPrefix(html, "<!doctype html>") || !strings.HasSuffix(html, "</html>\n") ||
		!strings.Contains(html, "Export &lt;me&gt;") || !strings.Contains(html, "What is the key?") {
		t.Errorf("export --format html:\n%s", html)
	}
	var doc struct {
		Meta     struct{ Name string }
		Branches []struct{ ID, Name string }
		Branch   string
		Messages []struct{ Role, Content string }
	}
	if err := json.Unmarshal([]byte(s.ok("export", "--format", "json", "s")), &doc); err != nil {
		t.Fatalf("export --format json: %v", err)
	}
	if doc.Meta.Name != "s" || len(doc.Branches) != 1 || doc.Branch != doc.Branches[0].ID ||
		len(doc.Messages) != 2 || doc.Messages[1].Content != "Keep it secret." {
		t.Errorf("export --format json: %+v", doc)
	}
	if jsonl := s.ok("export", "--format", "jsonl", "s"); strings.Count(jsonl, "\n") != 2 {
		t.Errorf("export --format jsonl:\n%s", jsonl)
	}
	for _, f := range []string{"md", "html", "json", "jsonl"} {
		out := s.ok("export", "--format", f, "--redact", "s")
		if strings.Contains(out, "AKIAIOSFODNN7EXAMPLE") || !strings.Contains(out, "[REDACTED:") {
			t.Errorf("export --format %s --redact left the key:\n%s", f, out)
		}
	}
	file := filepath.Join(t.TempDir(), "out.md")
	if out := s.ok("export", "-o", file, "s"); out != "" {
		t.Errorf("export -o printed %q", out)
	}
	if got, _ := os.ReadFile(file); string(got) != s.ok("show", "s") {
		t.Errorf("export -o wrote %q", got)
	}
	if r := s.run("export", "--format", "original", "s"); r.code != 1 || !strings.Contains(r.stderr, "not imported") {
		t.Errorf("export --format original of a session made here: %v", r)
	}
	// A failed export to a file leaves the file as it was.
	if err := os.WriteFile(file, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := s.run("export", "--format", "original", "-o", file, "s"); r.code != 1 {
		t.Errorf("failing export -o: %v", r)
	}
	if got, _ := os.ReadFile(file); string(got) != "keep me" {
		t.Errorf("a failed export -o changed the file to %q", got)
	}
	if ents, _ := os.ReadDir(filepath.Dir(file)); len(ents) != 1 {
		t.Errorf("a failed export -o left %d files behind", len(ents)-1)
	}
	if r := s.run("export", "--format", "pdf", "s"); r.code != 2 {
		t.Errorf("export --format pdf: %v", r)
	}
}

// A Claude Code rewind imports as a branch beside the default one, and the
// original still comes back byte for byte from the two together.
func TestImportRewindBranch(t *testing.T) {
	line := func(uuid, parent, role, text string) string {
		p := "null"
		if parent != "" {
			p = `"` + parent + `"`
		}
		return `{"type":"` + role + `","uuid":"` + uuid + `","parentUuid":` + p + `,"sessionId":"rewind-test-session",` +
			`"timestamp":"2026-01-01T00:00:00Z","message":{"role":"` + role + `","content":"` + text + `"}}`
	}
	src := strings.Join([]string{
		line("u1", "", "user", "first question"),
		line("a1", "u1", "assistant", "the answer"),
		line("u2", "a1", "user", "abandoned follow-up"),
		line("a2", "u2", "assistant", "abandoned reply"),
		line("u3", "a1", "user", "kept follow-up"),
		line("a3", "u3", "assistant", "kept reply"),
	}, "\n") + "\n"
	path := filepath.Join(t.TempDir(), "rewind.jsonl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newStore(t)
	name := strings.TrimSpace(s.ok("import", path))
	if out := s.ok("branches", name); !strings.Contains(out, "rewind-1") {
		t.Fatalf("branches:\n%s", out)
	}
	main := s.ok("show", name)
	if !strings.Contains(main, "kept follow-up") || strings.Contains(main, "abandoned") {
		t.Errorf("default branch:\n%s", main)
	}
	old := s.ok("show", "--branch", "rewind-1", name)
	if !strings.Contains(old, "the answer") || !strings.Contains(old, "abandoned reply") || strings.Contains(old, "kept") {
		t.Errorf("rewind-1:\n%s", old)
	}
	if orig := s.ok("export", "--format", "original", name); orig != src {
		t.Errorf("export --format original:\n%s\nwant:\n%s", orig, src)
	}
	if r := s.run("import", path); r.code != 0 || r.stdout != "" {
		t.Errorf("second import: %v", r)
	}
}

// A Codex session forked from another links to it once both are imported,
// whichever file comes first.
func TestImportCodexForkLinks(t *testing.T) {
	rollout := func(id, forkedFrom string) string {
		fork := ""
		if forkedFrom != "" {
			fork = `,"forked_from_id":"` + forkedFrom + `"`
		}
		return `{"timestamp":"2026-02-23T12:00:00Z","type":"session_meta","payload":{"id":"` + id + `","cwd":"/w","model_provider":"openai","timestamp":"2026-02-23T12:00:00Z"` + fork + `}}` + "\n" +
			`{"timestamp":"2026-02-23T12:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hello from ` + id + `"}]}}` + "\n"
	}
	dir := t.TempDir()
	parentID, childID := "019c8a4d-0000-7000-8000-00000000aaaa", "019c8a4d-0000-7000-8000-00000000bbbb"
	child := filepath.Join(dir, "a-child.jsonl")
	parent := filepath.Join(dir, "b-parent.jsonl")
	os.WriteFile(child, []byte(rollout(childID, parentID)), 0o644)
	os.WriteFile(parent, []byte(rollout(parentID, "")), 0o644)
	s := newStore(t)
	names := strings.Fields(s.ok("import", child, parent))
	if len(names) != 2 {
		t.Fatalf("import printed %q", names)
	}
	var meta struct {
		Meta struct{ ID, Parent string }
	}
	json.Unmarshal([]byte(s.ok("export", "--format", "json", names[1])), &meta)
	parentSessfsID := meta.Meta.ID
	json.Unmarshal([]byte(s.ok("export", "--format", "json", names[0])), &meta)
	if meta.Meta.Parent == "" || meta.Meta.Parent != parentSessfsID {
		t.Errorf("the fork's parent is %q, want %q", meta.Meta.Parent, parentSessfsID)
	}
}

// On a terminal, import shows its progress on one line of standard error;
// piped, it prints only the names.
func TestImportProgress(t *testing.T) {
	data, files := dataFiles(t)
	s := newStore(t)
	if r := s.run("import", data...); strings.Contains(r.stderr, "importing") {
		t.Errorf("import without a terminal printed progress: %v", r)
	}
	script, err := exec.LookPath("script") // util-linux: runs a command on a pseudo-terminal
	if err != nil {
		t.Fatal("script (bsdutils, essential on Debian) is missing")
	}
	store2 := filepath.Join(t.TempDir(), "store")
	out, err := exec.Command(script, "-qec", bin+" import --store "+store2+" "+strings.Join(data, " "), "/dev/null").CombinedOutput()
	if err != nil {
		t.Fatalf("import on a terminal: %v\n%s", err, out)
	}
	if want := fmt.Sprintf("importing %d/%d", len(files), len(files)); !strings.Contains(string(out), want) {
		t.Errorf("import on a terminal did not show %q:\n%q", want, out)
	}
}

// mount --source is checked before anything is mounted.
func TestMountSourceMisuse(t *testing.T) {
	s := newStore(t)
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--source", "claude-code", dir},      // no mount point
		{"--source", "pdf", dir, t.TempDir()}, // unknown format
		{dir, t.TempDir()},                    // two arguments without --source
	} {
		if r := s.run("mount", args...); r.code != 2 {
			t.Errorf("mount %v: %v, want exit 2", args, r)
		}
	}
	if r := s.run("mount", "--source", "claude-code", filepath.Join(dir, "missing"), t.TempDir()); r.code != 1 || !strings.Contains(r.stderr, "missing") {
		t.Errorf("mount --source of a missing folder: %v", r)
	}
	mnt := filepath.Join(dir, "inside")
	os.Mkdir(mnt, 0o755)
	if r := s.run("mount", "--source", "claude-code", dir, mnt); r.code != 1 || !strings.Contains(r.stderr, "agent's folder") {
		t.Errorf("mount point inside the agent's folder: %v", r)
	}
}

// An imported session is dated by its source: created when the agent
// began it, last active at its last message, not when it was imported.
func TestImportKeepsTimes(t *testing.T) {
	_, files := dataFiles(t)
	s := newStore(t)
	for _, f := range files {
		data, _ := os.ReadFile(f)
		var first, last time.Time
		for _, l := range strings.Split(string(data), "\n") {
			var m struct{ Timestamp, StartTime string } // Gemini's metadata: startTime
			json.Unmarshal([]byte(l), &m)
			if m.Timestamp == "" {
				m.Timestamp = m.StartTime
			}
			if ts, err := time.Parse(time.RFC3339Nano, m.Timestamp); err == nil {
				if first.IsZero() {
					first = ts
				}
				if ts.After(last) {
					last = ts
				}
			}
		}
		name := strings.TrimSpace(s.ok("import", f))
		var list []struct {
			Name         string
			Created      time.Time
			LastActivity time.Time `json:"last_activity"`
		}
		json.Unmarshal([]byte(s.ok("ls", "--json")), &list)
		for _, l := range list {
			if l.Name != name {
				continue
			}
			if l.Created.After(first.Add(time.Minute)) || !l.LastActivity.Equal(last) {
				t.Errorf("%s: created %v, last active %v; the source runs from %v to %v", name, l.Created, l.LastActivity, first, last)
			}
		}
	}
}

// claudeLine is one line of a Claude Code session file.
func claudeLine(session, uuid, parent, role, text string, sidechain bool) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	side := ""
	if sidechain {
		side = `"isSidechain":true,`
	}
	return `{` + side + `"type":"` + role + `","uuid":"` + uuid + `","parentUuid":` + p + `,"sessionId":"` + session + `",` +
		`"timestamp":"2026-01-01T00:00:00Z","message":{"role":"` + role + `","content":"` + text + `"}}` + "\n"
}

// A subagent's own file (<session>/subagents/agent-*.jsonl, its lines under
// the session's id) imports as a session of its own, after its session,
// linked to it: it neither takes the session's name nor mixes with it.
func TestImportSubagentFile(t *testing.T) {
	dir := t.TempDir()
	const id = "aaaaaaaa-0000-4000-8000-000000000001"
	main := claudeLine(id, "u1", "", "user", "main question", false) + claudeLine(id, "a1", "u1", "assistant", "main answer", false)
	sub := claudeLine(id, "s1", "", "user", "subagent task", true) + claudeLine(id, "s2", "s1", "assistant", "subagent answer", true)
	os.MkdirAll(filepath.Join(dir, id, "subagents"), 0o755)
	os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte(main), 0o644)
	os.WriteFile(filepath.Join(dir, id, "subagents", "agent-x1.jsonl"), []byte(sub), 0o644)
	s := newStore(t)
	names := strings.Fields(s.ok("import", dir))
	if len(names) != 2 || names[0] != "main-question" || names[1] != "main-question-agent-x1" {
		t.Fatalf("import printed %q", names)
	}
	if got := s.ok("export", "--format", "original", names[0]); got != main {
		t.Errorf("the session's original:\n%s", got)
	}
	if got := s.ok("export", "--format", "original", names[1]); got != sub {
		t.Errorf("the subagent's original:\n%s", got)
	}
	var doc struct{ Meta struct{ ID, Parent string } }
	json.Unmarshal([]byte(s.ok("export", "--format", "json", names[0])), &doc)
	parent := doc.Meta.ID
	json.Unmarshal([]byte(s.ok("export", "--format", "json", names[1])), &doc)
	if doc.Meta.Parent != parent {
		t.Errorf("the subagent's parent is %q, want its session %q", doc.Meta.Parent, parent)
	}
	if r := s.run("import", dir); r.code != 0 || r.stdout != "" {
		t.Errorf("second import: %v", r)
	}
}

// Rewinds in either order, a fork lost after an import, and subagent lines
// that arrive as the source grows: every line ends up once, in its branch,
// and the original comes back byte for byte.
func TestImportBranchesRepairAndGrowth(t *testing.T) {
	const id = "bbbbbbbb-0000-4000-8000-000000000002"
	full := claudeLine(id, "u1", "", "user", "q1", false) +
		claudeLine(id, "a1", "u1", "assistant", "r1", false) +
		claudeLine(id, "u2", "a1", "user", "q2", false) +
		claudeLine(id, "a2", "u2", "assistant", "r2", false) +
		claudeLine(id, "u3", "a2", "user", "q3 abandoned", false) +
		claudeLine(id, "u4", "a2", "user", "q3 again", false) + // rewind to a2
		claudeLine(id, "u5", "a1", "user", "q2 again", false) + // rewind further back, to a1
		claudeLine(id, "a5", "u5", "assistant", "r2 again", false)
	grown := full +
		claudeLine(id, "s1", "", "user", "subagent task", true) +
		claudeLine(id, "s2", "s1", "assistant", "subagent answer", true) +
		claudeLine(id, "u6", "a5", "user", "q3 on the new path", false)
	path := filepath.Join(t.TempDir(), id+".jsonl")
	os.WriteFile(path, []byte(full), 0o644)
	s := newStore(t)
	name := strings.TrimSpace(s.ok("import", path))
	lines := func() int { return strings.Count(s.ok("export", "--format", "jsonl", name), "\n") }
	out := s.ok("branches", name)
	rows := 0
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(strings.TrimPrefix(l, "*")); len(f) > 0 && strings.HasPrefix(f[0], "rewind-") {
			rows++
		}
	}
	if rows != 2 {
		t.Fatalf("branches after two rewinds:\n%s", out)
	}
	if got := s.ok("export", "--format", "original", name); got != full {
		t.Fatalf("original after two rewinds:\n%s", got)
	}
	// A fork the user removed stays removed: the source is imported whole.
	s.ok("branch", "rm", name, "rewind-1")
	if out := strings.TrimSpace(s.ok("import", path)); out != "" {
		t.Errorf("re-import after removing a fork printed %q, want nothing", out)
	}
	// One an import cut short never made (meta.json not yet marked
	// complete) is made by the next import.
	markIncomplete(t, s.dir, name)
	if out := strings.TrimSpace(s.ok("import", path)); out != name {
		t.Errorf("re-import after an import cut short printed %q", out)
	}
	if got := s.ok("export", "--format", "original", name); got != full {
		t.Errorf("original after the repair:\n%s", got)
	}
	// Growth: subagent lines go to their branch, the new prompt to main.
	os.WriteFile(path, []byte(grown), 0o644)
	before := lines()
	s.ok("import", path)
	if n := lines(); n != before+1 {
		t.Errorf("the default branch grew by %d lines, want 1 (the subagent's go to their branch)", n-before)
	}
	if out := s.ok("show", "--branch", "subagent-1", name); !strings.Contains(out, "subagent answer") {
		t.Errorf("subagent-1:\n%s", out)
	}
	if got := s.ok("export", "--format", "original", name); got != grown {
		t.Errorf("original after growth:\n%s\nwant:\n%s", got, grown)
	}
}

// A session imported by a sessfs that kept no line numbers is refused
// rather than filled with a second copy of every line.
func TestImportRefusesOldImport(t *testing.T) {
	_, files := dataFiles(t)
	src := files[0]
	s := newStore(t)
	name := strings.TrimSpace(s.ok("import", src))
	editOrigin(t, s.dir, name, func(origin map[string]any) {
		delete(origin, "bytes")
		delete(origin, "sha256")
	})
	before := s.ok("export", "--format", "jsonl", name)
	r := s.run("import", src)
	if r.code != 1 || !strings.Contains(r.stderr, "earlier sessfs") {
		t.Errorf("re-import of an old import: %v", r)
	}
	if after := s.ok("export", "--format", "jsonl", name); after != before {
		t.Errorf("the refused import changed the session")
	}
}

// export -o makes its file as the umask says, and keeps an existing
// file's mode.
func TestExportFileMode(t *testing.T) {
	s := newStore(t)
	s.ok("new", "s")
	dir := t.TempDir()
	fresh := filepath.Join(dir, "fresh.md")
	out, err := exec.Command("sh", "-c", `umask 077 && "$1" export --store "$2" -o "$3" s`, "sh", bin, s.dir, fresh).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if fi, err := os.Stat(fresh); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("export -o under umask 077 made mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	kept := filepath.Join(dir, "kept.md")
	os.WriteFile(kept, nil, 0o640)
	os.Chmod(kept, 0o640)
	s.ok("export", "-o", kept, "s")
	if fi, _ := os.Stat(kept); fi.Mode().Perm() != 0o640 {
		t.Errorf("export -o over a 0640 file left mode %v", fi.Mode().Perm())
	}
}

// export -o into a folder that does not exist, or onto a folder, fails
// naming the user's path. Before, the error named the temp file export
// writes through (".tmp-out.md-123…").
func TestExportToMissingFolder(t *testing.T) {
	s := newStore(t)
	s.ok("new", "s")
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	s.fails(1, "cannot write "+missing+"/out.md: the folder "+missing+" does not exist", "", "export", "-o", filepath.Join(missing, "out.md"), "s")
	s.fails(1, dir+" is a folder: name a file to write", "", "export", "-o", dir, "s")
	if r := s.run("export", "-o", filepath.Join(missing, "out.md"), "s"); strings.Contains(r.stderr, ".tmp") {
		t.Errorf("the error names a temp file: %v", r)
	}
}

// export -o onto a full disk fails naming the user's path and the plain
// error, and leaves nothing behind. Before, the error named the temp file
// ("write /…/.tmp-out.json-312…: no space left on device").
func TestExportToFullDisk(t *testing.T) {
	needMount(t)
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=64k"); err != nil {
		t.Fatalf("mount a 64 KiB tmpfs: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	s := newStore(t)
	s.ok("new", "s")
	s.okStdin(strings.Repeat("a long message ", 10000), "append", "s", "-") // 150 KB
	out := filepath.Join(dir, "out.json")
	s.fails(1, "sessfs export: cannot write "+out+": no space left on device", "", "export", "--format", "json", "-o", out, "s")
	if r := s.run("export", "--format", "json", "-o", out, "s"); strings.Contains(r.stderr, ".tmp") {
		t.Errorf("the error names a temp file: %v", r)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("the failed export left %v", left)
	}
}

// export --format original writes the source as it was and says on
// stderr how many messages added in sessfs it left out, and which formats
// hold them. Before, it left them out without a word.
func TestExportOriginalSaysWhatItLeavesOut(t *testing.T) {
	const id = "eeeeeeee-0000-4000-8000-000000000005"
	src := claudeLine(id, "u1", "", "user", "imported question", false) + claudeLine(id, "a1", "u1", "assistant", "imported answer", false)
	path := filepath.Join(t.TempDir(), id+".jsonl")
	os.WriteFile(path, []byte(src), 0o600)
	s := newStore(t)
	name := strings.TrimSpace(s.ok("import", path))
	if r := s.run("export", "--format", "original", name); r.code != 0 || r.stdout != src || r.stderr != "" {
		t.Fatalf("export of a session as imported: %v", r)
	}
	s.ok("append", name, "added here")
	s.ok("fork", name, "try")
	s.ok("append", "--branch", "try", name, "added on a branch")
	s.ok("append", "--branch", "try", "--role", "assistant", name, "and its reply")
	want := "sessfs export: the original leaves out 3 messages added in sessfs (main: 1, try: 2); " +
		"--format jsonl or json includes them (with --branch B for a branch other than the default)\n"
	if r := s.run("export", "--format", "original", name); r.code != 0 || r.stdout != src || r.stderr != want {
		t.Errorf("export --format original after appends: %v\nwant stderr %q", r, want)
	}
	out := filepath.Join(t.TempDir(), "orig.jsonl")
	if r := s.run("export", "--format", "original", "-o", out, name); r.code != 0 || r.stderr != want {
		t.Errorf("export --format original -o: %v", r)
	}
	if got, _ := os.ReadFile(out); string(got) != src {
		t.Errorf("export -o wrote %q", got)
	}
}

// markIncomplete leaves meta.json's record of an import as an import cut
// short leaves it: every line not yet stored.
func markIncomplete(t *testing.T, storeDir, name string) {
	t.Helper()
	editOrigin(t, storeDir, name, func(origin map[string]any) { delete(origin, "complete") })
}

// editOrigin changes what meta.json records of an imported session's source.
func editOrigin(t *testing.T, storeDir, name string, edit func(map[string]any)) {
	t.Helper()
	st, err := filestore.Open(storeDir, filestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := st.Session(name)
	if err != nil {
		t.Fatal(err)
	}
	m, err := sess.Meta()
	if err != nil {
		t.Fatal(err)
	}
	var origin map[string]any
	if err := json.Unmarshal(m.Extra["source"], &origin); err != nil {
		t.Fatal(err)
	}
	edit(origin)
	raw, _ := json.Marshal(origin)
	if err := sess.SetExtra("source", raw); err != nil {
		t.Fatal(err)
	}
}
