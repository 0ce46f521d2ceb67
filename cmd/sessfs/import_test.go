package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/integration/realdata"
)

// The real sessions kept beside the repository import, each into one session whose
// message count matches the source's message lines, and a second import
// of the same files adds nothing.
func TestImportRealSessions(t *testing.T) {
	data, files := dataFiles(t)
	s := newStore(t)
	names := strings.Fields(s.ok("import", data...))
	if len(names) != len(files) {
		t.Fatalf("import printed %d names for %d files: %v", len(names), len(files), names)
	}
	var list []struct {
		Name     string `json:"name"`
		Messages int    `json:"messages"`
	}
	if err := json.Unmarshal([]byte(s.ok("ls", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	// A Gemini CLI file with no message line (all it holds is the
	// session's metadata and context: the file a --resume started and
	// left, beside its session's file in the data) is kept, archived
	// under the session of its id; every other file is an active session
	// with messages.
	noMessage := map[string]bool{}
	for i, f := range files {
		if realdata.Agent(f) != "gemini" {
			continue
		}
		data, _ := os.ReadFile(f)
		noMessage[names[i]] = true
		for _, line := range strings.Split(string(data), "\n") {
			var l struct{ Type string }
			if json.Unmarshal([]byte(line), &l) == nil && (l.Type == "user" || l.Type == "gemini") {
				noMessage[names[i]] = false
			}
		}
	}
	var all []struct {
		Name, State, Parent string
	}
	if err := json.Unmarshal([]byte(s.ok("ls", "--all", "--json")), &all); err != nil {
		t.Fatal(err)
	}
	for _, l := range all {
		if noMessage[l.Name] && (l.State != "archived" || l.Parent == "") {
			t.Errorf("%s, a Gemini CLI file of no message, is %s with parent %q: want archived under its session", l.Name, l.State, l.Parent)
		}
	}
	total := 0
	for _, l := range list {
		if l.Messages == 0 || noMessage[l.Name] {
			t.Errorf("%s is active with %d messages", l.Name, l.Messages)
		}
		total += l.Messages
	}
	// Each session with messages shows as Markdown: a header naming its
	// agent, then its turns.
	for _, n := range names {
		if noMessage[n] {
			continue
		}
		md := s.ok("show", n)
		if !strings.HasPrefix(md, "# ") || !strings.Contains(md, "\n- agent: ") || !strings.Contains(md, "\n## Turn 1") {
			t.Errorf("show %s starts %q", n, md[:min(300, len(md))])
		}
	}
	r := s.run("import", data...)
	if r.code != 0 || r.stdout != "" || strings.Count(r.stderr, "already imported") != len(files) {
		t.Errorf("second import: %v", r)
	}
	var again []struct{ Messages int }
	json.Unmarshal([]byte(s.ok("ls", "--json")), &again)
	sum := 0
	for _, l := range again {
		sum += l.Messages
	}
	if len(again) != len(list) || sum != total {
		t.Errorf("second import changed the store: %d sessions %d messages, was %d and %d", len(again), sum, len(list), total)
	}
}

func TestImportRefusesJunk(t *testing.T) {
	s := newStore(t)
	junk := filepath.Join(t.TempDir(), "junk.jsonl")
	os.WriteFile(junk, []byte("not json at all\n"), 0o600)
	s.fails(1, "junk.jsonl", "", "import", junk)
	s.fails(2, "--format", "", "import", "--format", "nope", junk)
}

// A file that is not of the format named is refused, saying what it looks
// like, and nothing is stored: before, --format codex of a Claude Code
// file made an empty session.
func TestImportRefusesWrongFormat(t *testing.T) {
	dir := t.TempDir()
	claude := filepath.Join(dir, "cc.jsonl")
	codex := filepath.Join(dir, "cx.jsonl")
	other := filepath.Join(dir, "other.jsonl")
	os.WriteFile(claude, []byte(claudeLine("s1", "u1", "", "user", "hello", false)), 0o600)
	os.WriteFile(codex, []byte(`{"timestamp":"2026-02-23T12:00:00Z","type":"session_meta","payload":{"id":"c1"}}`+"\n"), 0o600)
	os.WriteFile(other, []byte(`{"name":"not a session"}`+"\n"), 0o600)
	s := newStore(t)
	s.fails(1, "cc.jsonl: not a Codex rollout (it looks like a Claude Code session); use --format auto", "", "import", "--format", "codex", claude)
	s.fails(1, "cx.jsonl: not a Claude Code session (it looks like a Codex rollout); use --format auto", "", "import", "--format", "claude-code", codex)
	s.fails(1, "other.jsonl: not a Codex rollout (no line of it is of a known format)", "", "import", "--format", "codex", other)
	s.fails(1, "other.jsonl: not a Claude Code session (no line of it is of a known format)", "", "import", "--format", "claude-code", other)
	s.fails(1, "other.jsonl: neither a Claude Code session, a Codex rollout nor a Gemini CLI session (no line of it is of a known format)", "", "import", other)
	if list := s.sessions(true); len(list) != 0 {
		t.Errorf("refused imports stored %d sessions: %v", len(list), list)
	}
	// The right format, named or detected, imports.
	s.ok("import", "--format", "claude-code", claude)
	s.ok("import", "--format", "codex", codex)
}

// A source that repeats a uuid on two message lines keeps both: the store
// acknowledges a message whose id it has without storing it (a retry), so
// the import must not hand it the same id twice.
func TestImportDuplicateUUID(t *testing.T) {
	s := newStore(t)
	src := filepath.Join(t.TempDir(), "dup.jsonl")
	data := claudeLine("s1", "u1", "", "user", "hello", false) +
		claudeLine("s1", "a1", "u1", "assistant", "hi", false) +
		claudeLine("s1", "a1", "u1", "assistant", "hi again, same uuid", false)
	if err := os.WriteFile(src, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	name := strings.TrimSpace(s.ok("import", src))
	if got := contents(s.messages(name)); len(got) != 3 {
		t.Errorf("stored %q, want all three lines", got)
	}
	if got := s.ok("export", "--format", "original", name); got != data {
		t.Errorf("export --format original:\n%s\nwant:\n%s", got, data)
	}
}

// A source rewritten since its import (or imported by a sessfs that kept
// no record of its bytes) is refused with the command that lets the next
// import take it afresh: `sessfs rm` of its session, with the session's
// name shell-quoted and the same --store. Renaming, which the message
// used to suggest, does not help: an import finds the session by its
// source's id. The command works as printed.
func TestImportRewrittenSaysRm(t *testing.T) {
	const id = "eeeeeeee-0000-4000-8000-000000000007"
	path := filepath.Join(t.TempDir(), id+".jsonl")
	write := func(text string) {
		t.Helper()
		data := claudeLine(id, "u1", "", "user", text, false) + claudeLine(id, "a1", "u1", "assistant", "an answer", false)
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s := newStore(t)
	// importAs imports path and renames its session to a name a shell
	// would split.
	importAs := func(name string) {
		t.Helper()
		s.ok("rename", strings.TrimSpace(s.ok("import", path)), name)
	}
	// rm runs the command the message holds in parentheses.
	rm := func(stderr string) {
		t.Helper()
		i := strings.Index(stderr, "(sessfs rm ")
		j := strings.LastIndex(stderr, ")")
		if i < 0 || j < i {
			t.Fatalf("no sessfs rm command in %q", stderr)
		}
		cmd := strings.Replace(stderr[i+1:j], "sessfs", `"$0"`, 1)
		if out, err := exec.Command("sh", "-c", cmd, bin).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", cmd, err, out)
		}
	}
	hint := "(sessfs rm --store " + shellQuote(s.dir) + " 'my session')"

	write("a question")
	importAs("my session")
	write("the question rewritten")
	r := s.run("import", path)
	if r.code != 1 || !strings.Contains(r.stderr, "changed since it was imported") ||
		!strings.Contains(r.stderr, `move session "my session" to the trash first `+hint) || strings.Contains(r.stderr, "rename") {
		t.Fatalf("import of a rewritten source: %v\nwant the hint %s", r, hint)
	}
	rm(r.stderr)
	importAs("my session")
	if got := contents(s.messages("my session")); len(got) != 2 || got[0] != "the question rewritten" {
		t.Errorf("the import after sessfs rm stored %q", got)
	}

	editOrigin(t, s.dir, "my session", func(origin map[string]any) {
		delete(origin, "bytes")
		delete(origin, "sha256")
	})
	r = s.run("import", path)
	if r.code != 1 || !strings.Contains(r.stderr, "earlier sessfs") || !strings.Contains(r.stderr, hint) {
		t.Fatalf("import of an old import: %v\nwant the hint %s", r, hint)
	}
	rm(r.stderr)
	if name := strings.TrimSpace(s.ok("import", path)); len(contents(s.messages(name))) != 2 {
		t.Errorf("the import after sessfs rm of an old import: %v", s.messages(name))
	}
}

// import of a link to a folder imports the folder's sessions, and records
// their paths in the folder the link leads to. Before, the link was checked
// as a folder (stat follows it) but walked as given, and WalkDir does not
// follow a link at its root: it imported nothing and exited 0.
func TestImportFolderThroughLink(t *testing.T) {
	base := t.TempDir()
	real, err := filepath.EvalSymlinks(base)
	if err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(base, "agent", "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, "a.jsonl"), []byte(claudeLine("s1", "u1", "", "user", "through a link", false)), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(filepath.Join(base, "agent"), link); err != nil {
		t.Fatal(err)
	}
	s := newStore(t)
	name := strings.TrimSpace(s.ok("import", link))
	if name != "through-a-link" {
		t.Fatalf("import of a link to a folder printed %q, want the session it holds", name)
	}
	var doc struct {
		Meta struct {
			Source struct {
				Path string `json:"path"`
			} `json:"source"`
		} `json:"meta"`
	}
	if err := json.Unmarshal([]byte(s.ok("export", "--format", "json", name)), &doc); err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(real, "agent", "proj", "a.jsonl"); doc.Meta.Source.Path != want {
		t.Errorf("meta.json's source path = %q, want %q, the link resolved", doc.Meta.Source.Path, want)
	}
	// The same folder by its own path is the same source: nothing new.
	if r := s.run("import", filepath.Join(base, "agent")); r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "nothing new") {
		t.Errorf("import of the folder the link leads to: %v, want nothing new", r)
	}
}

// TestImportFromAgentFolders: import with no PATH imports from where the
// agents keep their sessions, says where, and finds nothing new the second
// time; with no such folder it fails saying where it looked.
func TestImportFromAgentFolders(t *testing.T) {
	claude, _ := realdata.Files("claude-code")
	codex, _ := realdata.Files("codex")
	claude = slices.DeleteFunc(claude, func(f string) bool { return filepath.Base(f) != "hello-world-script.jsonl" })
	if len(claude) == 0 || len(codex) == 0 {
		t.Fatal("no real sessions beside the repository")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CODEX_HOME", "")
	s := newStore(t)
	s.fails(1, "no agent's sessions found", "", "import")

	place := func(src string, dir ...string) {
		d := filepath.Join(append([]string{home}, dir...)...)
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, filepath.Base(src)), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	place(claude[0], ".claude", "projects", "-home-dev-project")
	place(codex[0], ".codex", "sessions", "2026", "02", "23")
	r := s.run("import")
	if r.code != 0 || len(strings.Fields(r.stdout)) != 2 ||
		!strings.Contains(r.stderr, filepath.Join(home, ".claude", "projects")) ||
		!strings.Contains(r.stderr, filepath.Join(home, ".codex", "sessions")) {
		t.Fatalf("import from the agents' folders:\n%v", r)
	}
	if r := s.run("import", "--format", "codex"); r.code != 0 || r.stdout != "" ||
		!strings.Contains(r.stderr, "nothing new") || strings.Contains(r.stderr, ".claude") {
		t.Errorf("import --format codex again:\n%v", r)
	}
}
