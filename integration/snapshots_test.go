package integration

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing/importer"
	"github.com/sessfs/sessfs/fsnode"
)

// File snapshots and revert-code through a real mount, as a harness uses
// them: the prompt written to append with the shell, `sessfs snapshot`
// before the agent's edits, the edits, the reply. turns/1/files/ then
// holds the tree as it was (diff -r finds nothing between it and a copy
// made before), files.json says which file did not exist;
// `sessfs revert-code` refuses while a file holds an edit made after the
// turn, and with --force puts the tree back byte for byte, the new file
// deleted, the conversation untouched.
func TestSnapshotsThroughMount(t *testing.T) {
	m := newMount(t)
	work := t.TempDir()
	src, orig := filepath.Join(work, "src"), filepath.Join(work, "orig")
	sh(t, `mkdir -p "$1/lib" && printf 'hello\n' > "$1/a.txt" && printf '\000\377\001bin' > "$1/lib/b.bin" &&
		printf '#!/bin/sh\n' > "$1/run.sh" && chmod 755 "$1/run.sh" && cp -a "$1" "$2"`, src, orig)
	dir := m.P("s")
	sh(t, `mkdir "$1" && echo "Please edit the files." > "$1/append"`, dir)
	out := cli(t, m.StoreDir, "snapshot", "s", src+"/a.txt", src+"/lib/b.bin", src+"/run.sh", src+"/new.txt")
	if !strings.Contains(out, "turn 1: "+src+"/new.txt (did not exist)") {
		t.Errorf("sessfs snapshot printed %q", out)
	}
	// The agent's edits, made before it answers.
	sh(t, `printf 'changed\n' > "$1/a.txt" && printf 'x' >> "$1/lib/b.bin" && chmod 644 "$1/run.sh" && echo new > "$1/new.txt" &&
		touch -d '1 hour ago' "$1/a.txt" "$1/lib/b.bin" "$1/run.sh" "$1/new.txt"`, src)
	sh(t, `printf '%s\n' '{"role":"assistant","content":"Done."}' >> "$1/append"`, dir)

	files := dir + "/turns/1/files" + src
	eventually(t, 2*time.Second, "the snapshots in turns/1/files/", func() (bool, string) {
		r := shResult(t, `diff -r "$1" "$2"`, orig, files)
		return r.code == 0, r.String()
	})
	if got := run(t, "stat", "-c", "%a %s", files+"/run.sh", files+"/lib/b.bin"); got != "555 10\n444 6\n" {
		t.Errorf("stat of the snapshots: %q", got)
	}
	var listed []struct {
		Path   string
		Exists bool
	}
	if err := json.Unmarshal([]byte(cat(t, dir+"/turns/1/files.json")), &listed); err != nil || len(listed) != 4 || listed[3].Path != src+"/new.txt" || listed[3].Exists {
		t.Errorf("files.json: %+v (%v)", listed, err)
	}
	wantErrno(t, "EACCES", "write a snapshot", `open(A[0], "w")`, files+"/a.txt")

	// Someone edits a.txt after the turn: reverting would lose it.
	sh(t, `printf 'mine\n' > "$1/a.txt" && touch -d '1 hour' "$1/a.txt"`, src)
	r := cliResult(t, m.StoreDir, "", "revert-code", "s", "--to-turn", "0")
	if r.code != 1 || !strings.Contains(r.stderr, "restore "+src+"/a.txt (modified ") {
		t.Errorf("revert-code over a file edited after the turn: %v", r)
	}
	if got, _ := os.ReadFile(src + "/a.txt"); string(got) != "mine\n" {
		t.Fatalf("a refused revert wrote a.txt: %q", got)
	}
	out = cli(t, m.StoreDir, "revert-code", "s", "--to-turn", "0", "--force")
	if want := "restore " + src + "/a.txt\nrestore " + src + "/lib/b.bin\ndelete  " + src + "/new.txt\nrestore " + src + "/run.sh\n"; out != want {
		t.Errorf("revert-code printed %q, want %q", out, want)
	}
	if r := shResult(t, `diff -r "$1" "$2" && [ "$(stat -c %a "$1/run.sh")" = 755 ]`, orig, src); r.code != 0 {
		t.Errorf("the tree after revert-code: %v", r)
	}
	if n := len(lines(cat(t, dir+"/messages.jsonl"))); n != 6 {
		t.Errorf("messages.jsonl has %d lines, want the 6 written", n)
	}
}

// An imported Claude Code session's own file history shows through the
// mount like sessfs's snapshots, from the backups Claude Code keeps:
// turns/2/files/ holds the files as turn 1 left them (diff -r against a
// tree made from the fixture's copies), of their copies' sizes and
// modes; files.json lists a file the turn created as not existing; a
// backup that is not on the machine shows nowhere.
func TestClaudeFileHistoryThroughMount(t *testing.T) {
	const fixture = "../backing/importer/testdata/claude-file-history"
	const id = "0199a3c2-5e1f-7d40-9b2a-3c4d5e6f7a81"
	proj := t.TempDir()
	src, err := os.ReadFile(filepath.Join(fixture, id+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	session := filepath.Join(t.TempDir(), id+".jsonl")
	if err := os.WriteFile(session, bytes.ReplaceAll(src, []byte("/home/dev/proj"), []byte(proj)), 0o600); err != nil {
		t.Fatal(err)
	}
	storeDir := filepath.Join(t.TempDir(), "store")
	name := strings.TrimSpace(cli(t, storeDir, "import", session))
	history, _ := filepath.Abs(filepath.Join(fixture, "file-history"))
	m := mountStore(t, storeDir, mountDir(t), fsnode.Options{FileHistory: importer.ClaudeFileHistory{Dir: history}})

	backups := filepath.Join(history, id)
	want := t.TempDir()
	sh(t, `mkdir "$1/assets" && cp "$2"/e93025c10b762dd0@v2 "$1/notes.md" && cp "$2"/baeb35e49438e0f6@v2 "$1/greet.txt" &&
		cp "$2"/6442c1891db5a130@v1 "$1/assets/logo.bin"`, want, backups)
	turn2 := m.P(name, "turns", "2", "files") + proj
	if r := shResult(t, `diff -r "$1" "$2"`, want, turn2); r.code != 0 {
		t.Errorf("turns/2/files against the backups: %v", r)
	}
	if got := run(t, "stat", "-c", "%a %s", turn2+"/assets/logo.bin", turn2+"/notes.md"); got != "555 5\n444 19\n" {
		t.Errorf("stat of the snapshots: %q", got)
	}
	var listed []struct {
		Path   string
		Exists bool
	}
	if err := json.Unmarshal([]byte(cat(t, m.P(name, "turns", "1", "files.json"))), &listed); err != nil || len(listed) != 2 ||
		listed[0].Path != proj+"/notes.md" || !listed[0].Exists || listed[1].Path != proj+"/greet.txt" || listed[1].Exists {
		t.Errorf("turns/1/files.json: %+v (%v)", listed, err)
	}
	if got := run(t, "ls", m.P(name, "turns", "3", "files")+proj); got != "greet.txt\nnotes.md\n" {
		t.Errorf("turns/3/files lists %q: the backup that is gone shows", got)
	}
}
