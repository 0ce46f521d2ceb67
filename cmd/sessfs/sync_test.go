package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/integration/realdata"
)

// agentHome is a home folder holding the real Claude Code and Codex
// sessions where those agents keep them, and a Codex file that is not a
// session; HOME points at it for the test.
func agentHome(t *testing.T) (home string, claude []string) {
	t.Helper()
	home = t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CODEX_HOME", "")
	copyTo := func(dir string, files []string) []string {
		var out []string
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			os.MkdirAll(dir, 0o700)
			dst := filepath.Join(dir, filepath.Base(f))
			if err := os.WriteFile(dst, b, 0o600); err != nil {
				t.Fatal(err)
			}
			out = append(out, dst)
		}
		return out
	}
	cc, _ := realdata.Files("claude-code")
	cx, _ := realdata.Files("codex")
	if len(cc) == 0 || len(cx) == 0 {
		t.Skip("no real sessions beside the repository")
	}
	claude = copyTo(filepath.Join(home, ".claude", "projects", "-home-me-proj"), cc)
	copyTo(filepath.Join(home, ".codex", "sessions", "2026", "02", "23"), cx)
	os.WriteFile(filepath.Join(home, ".codex", "sessions", "2026", "02", "23", "notes.jsonl"), []byte("not json\n"), 0o600)
	return home, claude
}

// sync with no PATH keeps every agent session of the home folder: one
// line per session stored, the file it cannot read named on stderr
// (exit 1) without stopping the others; again, nothing is stored. A
// deleted source leaves its session, which ls marks; --agent narrows to
// that agent's folders.
func TestSyncCommand(t *testing.T) {
	_, claude := agentHome(t)
	s := newStore(t)
	r := s.run("sync")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	cc, _ := realdata.Files("claude-code")
	cx, _ := realdata.Files("codex")
	if r.code != 1 || len(lines) != len(cc)+len(cx) || !strings.Contains(r.stderr, "notes.jsonl: neither a Claude Code session") {
		t.Fatalf("first sync: %v", r)
	}
	for _, l := range lines {
		if !strings.Contains(l, ": new, from ") {
			t.Errorf("line %q: want <name>: new, from <file>", l)
		}
	}
	// Each session stored has its transcripts' sizes kept, as import
	// leaves them, so that a mount's first stat of it is a lookup.
	ids, _ := filepath.Glob(filepath.Join(s.dir, "sessions", "*"))
	for _, id := range ids {
		for _, f := range []string{"md", "html", "json", "redacted.md"} {
			if kept, _ := filepath.Glob(filepath.Join(s.dir, "index", "sizes", filepath.Base(id), "*."+f)); len(kept) == 0 {
				t.Errorf("session %s: no kept sizes of its %s pieces after sync", filepath.Base(id), f)
			}
		}
	}
	if len(ids) != len(lines) {
		t.Errorf("%d sessions in the store, %d lines printed", len(ids), len(lines))
	}
	if r := s.run("sync"); r.stdout != "" || !strings.Contains(r.stderr, "0 stored, "+strconv.Itoa(len(lines))+" unchanged") {
		t.Errorf("second sync: %v", r)
	}

	if err := os.Remove(claude[0]); err != nil {
		t.Fatal(err)
	}
	r = s.run("sync", "--agent", "claude-code")
	if r.code != 0 || !strings.Contains(r.stdout, "source gone ("+claude[0]+")") || !strings.Contains(r.stderr, "1 source gone") ||
		strings.Contains(r.stderr, ".codex") {
		t.Fatalf("sync --agent claude-code after a delete: %v", r)
	}
	name := strings.Fields(r.stdout)[0]
	name = strings.TrimSuffix(name, ":")
	var list []struct {
		Name       string `json:"name"`
		Messages   int    `json:"messages"`
		SourceGone string `json:"source_gone"`
	}
	if err := json.Unmarshal([]byte(s.ok("ls", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	gone := 0
	for _, e := range list {
		if e.SourceGone != "" {
			gone++
			if e.Name != name || e.Messages == 0 {
				t.Errorf("gone: %+v, want %s with its messages", e, name)
			}
		}
	}
	if gone != 1 || len(list) != len(lines) {
		t.Errorf("ls --json: %d gone of %d sessions, want 1 of %d", gone, len(list), len(lines))
	}
	if table := s.ok("ls"); !strings.Contains(table, "(source gone)") {
		t.Errorf("ls does not mark the session whose source is gone:\n%s", table)
	}
}

// Usage errors, and the unit file: it runs this binary's sync --watch on
// the store given, with the agents' folders the environment names.
func TestSyncFlags(t *testing.T) {
	s := newStore(t)
	if r := s.run("sync", "--agent", "cursor"); r.code != 2 || !strings.Contains(r.stderr, `--agent "cursor"`) {
		t.Errorf("sync --agent cursor: %v", r)
	}
	if r := s.run("sync", "--agent", "codex", "x"); r.code != 2 {
		t.Errorf("sync --agent and PATH: %v", r)
	}
	t.Setenv("CODEX_HOME", "/home/me/my codex")
	unit := s.ok("sync", "--unit")
	exe, _ := filepath.Abs(bin)
	for _, want := range []string{
		"ExecStart=" + exe + " sync --watch --store " + s.dir + "\n",
		`Environment="CODEX_HOME=/home/me/my codex"` + "\n",
		"[Install]\nWantedBy=default.target\n",
	} {
		if !strings.Contains(unit, want) {
			t.Errorf("sync --unit lacks %q:\n%s", want, unit)
		}
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CODEX_HOME", "")
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	s.fails(1, "name the files or folders to sync", "", "sync")
}
