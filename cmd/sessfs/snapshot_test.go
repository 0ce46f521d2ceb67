package main

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeAged writes a file last modified an hour ago: before any turn a
// test appends ended, as an agent's edit is.
func writeAged(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, mode)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(path, old, old)
}

func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			c, _ := os.ReadFile(p)
			fi, _ := d.Info()
			out[strings.TrimPrefix(p, dir+"/")] = fi.Mode().Perm().String() + " " + string(c)
		}
		return err
	})
	return out
}

// sessfs snapshot records files before a turn edits them (the first of a
// turn wins; a missing file is recorded as such), and sessfs revert-code
// puts a tree back byte for byte, prints what it changes, changes nothing
// with --dry-run, and refuses, changing nothing, to overwrite a file
// changed since the agent's last turn on it, unless --force.
func TestSnapshotRevertCode(t *testing.T) {
	s := newStore(t)
	dir := t.TempDir()
	a, bin, gone := filepath.Join(dir, "a.txt"), filepath.Join(dir, "sub", "b.bin"), filepath.Join(dir, "new.txt")
	writeAged(t, a, "a0\n", 0o644)
	writeAged(t, bin, "\x00\xff\x01", 0o755)
	before := readTree(t, dir)

	s.ok("new", "s")
	s.ok("append", "s", "turn one")
	out := s.ok("snapshot", "s", a, gone)
	if want := "turn 1: " + a + " (3 bytes)\nturn 1: " + gone + " (did not exist)\n"; out != want {
		t.Errorf("snapshot printed %q, want %q", out, want)
	}
	writeAged(t, a, "a1\n", 0o644)
	writeAged(t, gone, "new\n", 0o644)
	if out := s.ok("snapshot", "s", a); !strings.Contains(out, "kept: the turn has it already") {
		t.Errorf("a second snapshot of a.txt in turn 1: %q", out)
	}
	s.ok("append", "s", "turn two")
	s.ok("snapshot", "s", "--turn", "2", a, bin)
	writeAged(t, a, "a2\n", 0o600)
	writeAged(t, bin, "edited", 0o644)
	s.ok("event", "s", "turn_end")
	after := readTree(t, dir)

	n := 0
	for _, m := range s.messages("s") {
		if m["event"] == "file_snapshot" {
			n++
		}
	}
	if n != 4 {
		t.Errorf("%d file_snapshot lines, want 4", n)
	}
	s.fails(exitUsage, "--turn 4", "", "snapshot", "s", "--turn", "4", a)
	s.fails(exitFail, "not a regular file", "", "snapshot", "s", dir)
	s.fails(exitUsage, "--to-turn N is required", "", "revert-code", "s")
	s.fails(exitFail, "has 2 turns", "", "revert-code", "s", "--to-turn", "3")

	out = s.ok("revert-code", "s", "--to-turn", "0", "--dry-run")
	if want := "restore " + a + "\ndelete  " + gone + "\nrestore " + bin + "\n"; out != want {
		t.Errorf("dry run printed %q, want %q", out, want)
	}
	if got := readTree(t, dir); !maps.Equal(got, after) {
		t.Fatalf("a dry run changed the files: %q", got)
	}

	// Someone edits a.txt after turn 2 ended: a revert would lose it.
	later := time.Now().Add(time.Hour)
	os.WriteFile(a, []byte("mine\n"), 0o600)
	os.Chtimes(a, later, later)
	s.fails(exitFail, "refused, nothing was changed: 1 change may lose work that is not the agent's: restore "+a+" (modified ", "", "revert-code", "s", "--to-turn", "1")
	if got := readTree(t, dir); got["a.txt"] != "-rw------- mine\n" || got["new.txt"] != after["new.txt"] || got["sub/b.bin"] != after["sub/b.bin"] {
		t.Fatalf("a refused revert changed the files: %q", got)
	}
	out = s.ok("revert-code", "s", "--to-turn", "1", "--force")
	if want := "restore " + a + "\nrestore " + bin + "\n"; out != want {
		t.Errorf("revert to 1 printed %q, want %q", out, want)
	}
	if got := readTree(t, dir); got["a.txt"] != "-rw-r--r-- a1\n" || got["sub/b.bin"] != before["sub/b.bin"] || got["new.txt"] != "-rw-r--r-- new\n" {
		t.Errorf("after revert to 1: %q", got)
	}
	// What a revert wrote is a state a snapshot recorded: going further
	// back is safe.
	s.ok("revert-code", "s", "--to-turn", "0")
	if got := readTree(t, dir); !maps.Equal(got, before) {
		t.Errorf("after revert to 0:\n%q\nwant\n%q", got, before)
	}
	if out := s.ok("revert-code", "s", "--to-turn", "0"); out != "" {
		t.Errorf("reverting again printed %q", out)
	}
	if msgs := s.messages("s"); len(msgs) != 7 {
		t.Errorf("the conversation has %d lines, want the 7 written", len(msgs))
	}
}

// claudeFileHistory copies the hand-made Claude Code session of
// backing/importer/testdata/claude-file-history, its files under dir
// (/home/dev/proj in the fixture), with its file history in a config
// folder set as $CLAUDE_CONFIG_DIR. It returns the session file.
func claudeFileHistory(t *testing.T, dir string) string {
	t.Helper()
	const fixture = "../../backing/importer/testdata/claude-file-history"
	const id = "0199a3c2-5e1f-7d40-9b2a-3c4d5e6f7a81"
	cfg := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	if err := os.CopyFS(filepath.Join(cfg, "file-history"), os.DirFS(filepath.Join(fixture, "file-history"))); err != nil {
		t.Fatal(err)
	}
	// The copies' modes are the modes restored: not left to the umask.
	backups, _ := filepath.Glob(filepath.Join(cfg, "file-history", id, "*"))
	for _, b := range backups {
		mode := os.FileMode(0o644)
		if strings.HasPrefix(filepath.Base(b), "6442c1891db5a130@") { // assets/logo.bin
			mode = 0o755
		}
		os.Chmod(b, mode)
	}
	src, err := os.ReadFile(filepath.Join(fixture, id+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), id+".jsonl")
	if err := os.WriteFile(path, bytes.ReplaceAll(src, []byte("/home/dev/proj"), []byte(dir)), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// An imported Claude Code session's own file history (its backups in
// $CLAUDE_CONFIG_DIR/file-history) is reverted as sessfs's snapshots
// are: each file back to its copy from before the first turn after N
// that edited it, a file the turns created deleted.
func TestRevertCodeClaudeFileHistory(t *testing.T) {
	s := newStore(t)
	dir := t.TempDir()
	name := strings.TrimSpace(s.ok("import", claudeFileHistory(t, dir)))
	notes, greet, logo := filepath.Join(dir, "notes.md"), filepath.Join(dir, "greet.txt"), filepath.Join(dir, "assets", "logo.bin")
	// The tree as turn 3 left it, last modified during turn 2 (the
	// fixture's times): the agent's.
	agents := time.Date(2026, 11, 2, 10, 1, 0, 0, time.UTC)
	for path, c := range map[string]string{notes: "notes after turn 1\n", greet: "hello, world!\n", logo: "\x00\x02"} {
		writeAged(t, path, c, 0o644)
		os.Chtimes(path, agents, agents)
	}
	if out := s.ok("revert-code", name, "--to-turn", "1"); out != "restore "+logo+"\nrestore "+greet+"\n" {
		t.Errorf("revert to 1 printed %q", out)
	}
	if got := readTree(t, dir); got["greet.txt"] != "-rw-r--r-- hello\n" || got["assets/logo.bin"] != "-rwxr-xr-x \x00\x01\xff\xfe\x89" || got["notes.md"] != "-rw-r--r-- notes after turn 1\n" {
		t.Errorf("after revert to 1: %q", got)
	}
	if out := s.ok("revert-code", name, "--to-turn", "0"); out != "delete  "+greet+"\nrestore "+notes+"\n" {
		t.Errorf("revert to 0 printed %q", out)
	}
	if got := readTree(t, dir); len(got) != 2 || got["notes.md"] != "-rw-r--r-- old notes\n" {
		t.Errorf("after revert to 0: %q", got)
	}
	// Without the backups there is nothing to revert to.
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	if out := s.ok("revert-code", name, "--to-turn", "0", "--dry-run"); out != "" {
		t.Errorf("with no file history, a dry run printed %q", out)
	}
}
