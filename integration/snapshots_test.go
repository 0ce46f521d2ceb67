package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
