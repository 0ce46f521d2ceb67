package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The real sessions kept beside the repository get readable, distinct names: the
// agent's slug where it has one, else words of the title; never the end of
// an id cut anywhere ("claude-code-rite_session" from "todowrite_session").
func TestImportNamesReadable(t *testing.T) {
	const slugMaxBytes = 40 // the README's bound for a name made of words
	data, files := dataFiles(t)
	s := newStore(t)
	names := strings.Fields(s.ok("import", data...))
	if len(names) != len(files) {
		t.Fatalf("import printed %d names for %d files: %v", len(names), len(files), names)
	}
	seen := map[string]bool{}
	word := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	for _, n := range names {
		if seen[n] || !word.MatchString(n) || len(n) > slugMaxBytes || strings.HasPrefix(n, "claude-code-") || strings.HasPrefix(n, "codex-") {
			t.Errorf("name %q: want distinct lower-case words, at most %d bytes, from a slug or title", n, slugMaxBytes)
		}
		seen[n] = true
	}
	// Claude Code's own slugs, where the files have one.
	for _, want := range []string{"expressive-chasing-pie", "delegated-marinating-toast", "adaptive-weaving-stardust"} {
		if !seen[want] {
			t.Errorf("no session named %q (the source's slug): %v", want, names)
		}
	}
}

// Colliding names take a suffix; a reserved one too; a source with neither
// slug nor an ASCII word of title is named by its format and id.
func TestImportNameCollisions(t *testing.T) {
	dir := t.TempDir()
	write := func(name, session, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(claudeLine(session, "u-"+session, "", "user", text, false)), 0o600)
		return p
	}
	a := write("a.jsonl", "aaaaaaaa-0000-4000-8000-00000000000a", "Fix the tests")
	b := write("b.jsonl", "bbbbbbbb-0000-4000-8000-00000000000b", "fix the tests!")
	c := write("c.jsonl", "cccccccc-0000-4000-8000-00000000000c", "Archive")
	d := write("d.jsonl", "dddddddd-0000-4000-8000-00000000000d", "日本語")
	s := newStore(t)
	s.ok("new", "fix-the-tests-2") // a session of the user's own
	got := strings.Fields(s.ok("import", a, b, c, d))
	want := []string{"fix-the-tests", "fix-the-tests-3", "archive-2", "claude-code-00000000000d"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("import named %q, want %q", got, want)
	}
}

// A re-import finds its session by the source's id, not by its name: after
// the user renamed it, the grown source goes into that session, and an
// unchanged one is "already imported as" the new name. Before, names were
// the only link, and a renamed session was imported again in full.
func TestImportAfterRename(t *testing.T) {
	const id = "cccccccc-0000-4000-8000-000000000003"
	first := claudeLine(id, "u1", "", "user", "first question", false) + claudeLine(id, "a1", "u1", "assistant", "first answer", false)
	grown := first + claudeLine(id, "u2", "a1", "user", "second question", false)
	path := filepath.Join(t.TempDir(), id+".jsonl")
	os.WriteFile(path, []byte(first), 0o600)
	s := newStore(t)
	name := strings.TrimSpace(s.ok("import", path))
	if name != "first-question" {
		t.Fatalf("import named the session %q, want first-question", name)
	}
	s.ok("rename", name, "mine")
	if r := s.run("import", path); r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "already imported as mine") {
		t.Errorf("re-import after the rename: %v", r)
	}
	os.WriteFile(path, []byte(grown), 0o600)
	if out := strings.TrimSpace(s.ok("import", path)); out != "mine" {
		t.Errorf("import of the grown source printed %q, want mine", out)
	}
	if list := s.sessions(true); len(list) != 1 {
		t.Fatalf("%d sessions after the re-imports, want 1: %v", len(list), list)
	}
	if got := s.ok("export", "--format", "original", "mine"); got != grown {
		t.Errorf("the renamed session's original:\n%s\nwant:\n%s", got, grown)
	}
	// Archived, it is still found; in the trash, it is not: a new import
	// makes a new session and leaves the trashed one as it was.
	s.ok("archive", "mine")
	if r := s.run("import", path); r.code != 0 || !strings.Contains(r.stderr, "already imported as mine") {
		t.Errorf("re-import of an archived session: %v", r)
	}
	s.ok("unarchive", "mine")
	s.ok("rm", "mine")
	if out := strings.TrimSpace(s.ok("import", path)); out != "first-question" {
		t.Errorf("import after rm printed %q, want a new session first-question", out)
	}
	var doc struct {
		Meta struct{ Source struct{ ID string } }
	}
	json.Unmarshal([]byte(s.ok("export", "--format", "json", "first-question")), &doc)
	if doc.Meta.Source.ID != id {
		t.Errorf("the new session's source id is %q", doc.Meta.Source.ID)
	}
}

// A subagent's file is named after its session as the session is named
// now, and linked to it, when the session came in by an earlier import and
// was renamed since.
func TestImportSubagentAfterRename(t *testing.T) {
	dir := t.TempDir()
	const id = "dddddddd-0000-4000-8000-000000000004"
	os.MkdirAll(filepath.Join(dir, id, "subagents"), 0o755)
	main := filepath.Join(dir, id+".jsonl")
	sub := filepath.Join(dir, id, "subagents", "agent-x2.jsonl")
	os.WriteFile(main, []byte(claudeLine(id, "u1", "", "user", "the main task", false)), 0o600)
	s := newStore(t)
	s.ok("import", main)
	s.ok("rename", "the-main-task", "p")
	os.WriteFile(sub, []byte(claudeLine(id, "s1", "", "user", "a subtask", true)), 0o600)
	if out := strings.TrimSpace(s.ok("import", dir)); out != "p-agent-x2" {
		t.Errorf("import of the subagent's file printed %q, want p-agent-x2", out)
	}
	var p, x struct{ Meta struct{ ID, Parent string } }
	json.Unmarshal([]byte(s.ok("export", "--format", "json", "p")), &p)
	json.Unmarshal([]byte(s.ok("export", "--format", "json", "p-agent-x2")), &x)
	if x.Meta.Parent != p.Meta.ID {
		t.Errorf("the subagent's parent is %q, want %q", x.Meta.Parent, p.Meta.ID)
	}
}
