package integration

import (
	"encoding/json"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
	"github.com/sessfs/sessfs/fsnode"
)

// Half of one branch's file, and another branch file whose name holds a
// '/': through the mount the session's default branch, its other branches
// and `ls branches/` keep working (the listing shows the good branches),
// and fsck reports both files and leaves the half one's log where it is.
// Before, messages.jsonl, transcript.md and append failed for the whole
// session, the listing failed with EIO, and fsck --repair moved the log to
// the trash as if it belonged to no branch.
func TestDamagedBranchThroughMount(t *testing.T) {
	requireFUSE(t)
	needCLI(t)
	storeDir := filepath.Join(t.TempDir(), "store")
	st, err := filestore.Open(storeDir, filestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := newSession(t, st, "s", "", jsonMsg("user", "on main"))
	x, err := s.Fork("", backing.Head, "x")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AppendID(x.ID, [][]byte{[]byte(jsonMsg("user", "on x"))}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Fork("", backing.Head, "y"); err != nil {
		t.Fatal(err)
	}
	main, _ := s.Branch("")
	file := filepath.Join(sessionDir(s), "branches", x.ID+".json")
	data, _ := os.ReadFile(file)
	os.WriteFile(file, data[:len(data)/2], 0o600)
	slash, _ := json.Marshal(backing.Branch{ID: "01a00000-0000-7000-8000-00000000000a", Name: "a/b", Parent: main.ID})
	os.WriteFile(filepath.Join(sessionDir(s), "branches", "01a00000-0000-7000-8000-00000000000a.json"), slash, 0o600)
	xlog := filepath.Join(sessionDir(s), "logs", x.ID+".jsonl")

	// The mount logs each left-out branch file once (the log package's
	// output, here).
	var logged lockedBuffer
	log.SetOutput(&logged)
	t.Cleanup(func() { log.SetOutput(os.Stderr) })
	m := mountStore(t, storeDir, mountDir(t), fsnode.Options{})
	if got := strings.Join(ls(t, m.P("s", "branches")), " "); got != "main y" {
		t.Errorf("ls branches/ = %q, want main y", got)
	}
	ls(t, m.P("s", "branches"))
	for _, id := range []string{x.ID, "01a00000-0000-7000-8000-00000000000a"} {
		if n := strings.Count(logged.String(), "branch file "+id+".json left out"); n != 1 {
			t.Errorf("the mount logged branch file %s %d times, want once:\n%s", id, n, logged.String())
		}
	}
	for _, f := range []string{"messages.jsonl", "transcript.md"} {
		if got := cat(t, m.P("s", f)); !strings.Contains(got, "on main") {
			t.Errorf("%s:\n%s", f, got)
		}
	}
	sh(t, `echo "after the damage" >> "$1"`, m.P("s", "append"))
	sh(t, `echo "on y" >> "$1"`, m.P("s", "branches", "y", "append"))
	if got := cat(t, m.P("s", "transcript.md")); !strings.Contains(got, "after the damage") {
		t.Errorf("transcript.md after an append:\n%s", got)
	}
	if got := cat(t, m.P("s", "branches", "y", "transcript.md")); !strings.Contains(got, "on y") {
		t.Errorf("y's transcript.md:\n%s", got)
	}
	m.Unmount(t)

	r := cliResult(t, storeDir, "", "fsck")
	if r.code != 1 || !strings.Contains(r.stdout, x.ID+".json") || !strings.Contains(r.stdout, "contains '/'") || strings.Contains(r.stdout, "log of no branch") {
		t.Errorf("fsck: %v", r)
	}
	cliResult(t, storeDir, "", "fsck", "--repair")
	if data, err := os.ReadFile(xlog); err != nil || !strings.Contains(string(data), "on x") {
		t.Errorf("fsck --repair took the damaged branch's log: %v", err)
	}
}
