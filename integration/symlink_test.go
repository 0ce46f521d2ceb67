package integration

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/backing/filestore"
	"github.com/sessfs/sessfs/fsnode"
)

// fileState is a file's or a folder's mode, and a hash of a file's bytes.
func fileState(t *testing.T, path string) string {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.IsDir() {
		return fi.Mode().String()
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%v %x", fi.Mode(), sha256.Sum256(data))
}

// The red team's case: a branch's log replaced by a link to a file outside
// the store, one with an invalid line (which a repair through the link
// would blank) and no final newline (which an append through it would cut
// as a torn tail). Appends through the CLI and the mount fail, fsck reports
// the link, fsck --repair leaves it for a human, and the outside file stays
// byte for byte and mode for mode as it was; the session's default branch
// keeps working.
func TestSymlinkedLogNotFollowed(t *testing.T) {
	requireFUSE(t)
	needCLI(t)
	store := filepath.Join(t.TempDir(), "store")
	cli(t, store, "new", "s")
	cli(t, store, "append", "s", "on main")
	cli(t, store, "fork", "s", "x")
	cli(t, store, "append", "--branch", "x", "s", "on x")
	st, err := filestore.Open(store, filestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := st.Session("s")
	if err != nil {
		t.Fatal(err)
	}
	x, err := s.Branch("x")
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "victim.jsonl")
	os.WriteFile(outside, []byte(`{"role":"user","content":"mine"}`+"\nnot json\nno final newline"), 0o644)
	os.Chmod(outside, 0o644)
	log := filepath.Join(sessionDir(s), "logs", x.ID+".jsonl")
	os.Remove(log)
	if err := os.Symlink(outside, log); err != nil {
		t.Fatal(err)
	}
	before := fileState(t, outside)

	if r := cliResult(t, store, "", "append", "--branch", "x", "s", "through the link"); r.code == 0 || !strings.Contains(r.stderr, "symbolic link") {
		t.Errorf("append to the linked branch: %v", r)
	}
	if r := cliResult(t, store, "", "fsck"); r.code != 1 || !strings.Contains(r.stdout, "symbolic link") {
		t.Errorf("fsck: %v", r)
	}
	if r := cliResult(t, store, "", "fsck", "--repair"); r.code != 1 || !strings.Contains(r.stdout, "symbolic link") {
		t.Errorf("fsck --repair: %v", r)
	}
	m := mountStore(t, store, mountDir(t), fsnode.Options{})
	if r := shResult(t, `echo "through the mount" >> "$1"`, m.P("s", "branches", "x", "append")); r.code == 0 {
		t.Errorf("append through the mount to the linked branch succeeded")
	}
	// Reading it says what is wrong (ELOOP), not that the disk failed.
	if r := runCmd(t, "", "cat", m.P("s", "branches", "x", "transcript.md")); r.code == 0 || !strings.Contains(r.stderr, "Too many levels of symbolic links") {
		t.Errorf("cat of the linked branch's transcript: %v", r)
	}
	sh(t, `echo "main still works" >> "$1"`, m.P("s", "append"))
	if got := cat(t, m.P("s", "transcript.md")); !strings.Contains(got, "main still works") {
		t.Errorf("main after the refused append:\n%s", got)
	}
	m.Unmount(t)
	if after := fileState(t, outside); after != before {
		t.Errorf("the file outside the store changed: %s, was %s", after, before)
	}
	if got := cli(t, store, "show", "s"); !strings.Contains(got, "on main") {
		t.Errorf("show s:\n%s", got)
	}
}

// A FORMAT or trash folder of the store that is a link: every command,
// fsck --repair included, refuses the store and says why, and the link's
// target keeps its mode (repair once chmodded it through the link).
func TestStoreLevelSymlinkRefused(t *testing.T) {
	needCLI(t)
	for _, entry := range []string{"FORMAT", "trash"} {
		store := filepath.Join(t.TempDir(), "store")
		cli(t, store, "new", "s")
		outside := filepath.Join(t.TempDir(), entry)
		if err := os.Rename(filepath.Join(store, entry), outside); err != nil {
			t.Fatal(err)
		}
		os.Chmod(outside, 0o755)
		os.Symlink(outside, filepath.Join(store, entry))
		before := fileState(t, outside)
		for _, args := range [][]string{{"fsck", "--repair"}, {"ls"}, {"append", "s", "hi"}} {
			if r := cliResult(t, store, "", args[0], args[1:]...); r.code == 0 || !strings.Contains(r.stderr, "symbolic link") {
				t.Errorf("%s with %s a link: %v", args, entry, r)
			}
		}
		if after := fileState(t, outside); after != before {
			t.Errorf("%s: the link's target changed: %s, was %s", entry, after, before)
		}
	}
}
