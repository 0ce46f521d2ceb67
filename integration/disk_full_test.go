package integration

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
	"github.com/sessfs/sessfs/fsnode"
)

// On a full disk every change to the namespace, a session's metadata or
// its branches fails with ENOSPC and changes nothing: not a byte of the
// store, through the mount (mv, mkdir) or the store's API. Two runs of
// fsck --repair then find nothing to promote (no half-made session turns
// visible), and once there is room again the same changes work.
func TestFullDiskErrorsAreTrue(t *testing.T) {
	requireFUSE(t)
	needCLI(t)
	tiny := tmpfs(t, "1m")
	storeDir := filepath.Join(tiny, "store")
	st, err := filestore.Open(storeDir, filestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := newSession(t, st, "a", "", jsonMsg("user", "first"))
	x, err := a.Fork("", backing.Head, "x")
	if err != nil {
		t.Fatal(err)
	}
	newSession(t, st, "b", "")
	c := newSession(t, st, "c", "")
	if err := st.Trash("c"); err != nil {
		t.Fatal(err)
	}
	m := mountStore(t, storeDir, mountDir(t), fsnode.Options{})
	fill := filepath.Join(tiny, "fill")
	fillDisk(t, fill)

	before := storeSnapshot(t, storeDir)
	same := func(what string) {
		t.Helper()
		if after := storeSnapshot(t, storeDir); after != before {
			t.Errorf("%s failed but changed the store:\n%s\nwas\n%s", what, after, before)
			before = after // each change is blamed on the step that made it
		}
	}
	for _, op := range []struct{ what, script string }{
		{"mv of a session", `mv "$1/a" "$1/renamed"`},
		{"mkdir of a session", `mkdir "$1/new"`},
		{"mkdir of a branch", `mkdir "$1/a/branches/y"`},
		{"mv of a branch", `mv "$1/a/branches/x" "$1/a/branches/x2"`},
		{"mv into archive", `mv "$1/b" "$1/archive/b"`},
	} {
		if r := shResult(t, op.script, m.Dir); r.code == 0 || !strings.Contains(r.stderr, "No space left") {
			t.Errorf("%s on a full disk: %v", op.what, r)
		}
		same(op.what)
	}
	s, err := st.SessionByID(a.ID())
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range []struct {
		what string
		do   func() error
	}{
		{"Rename", func() error { return st.Rename("a", "renamed") }},
		{"Archive", func() error { return st.Archive("b") }},
		{"Trash", func() error { return st.Trash("b") }},
		{"Restore", func() error { _, err := st.Restore(c.ID(), ""); return err }},
		{"Create", func() error { _, _, err := st.Create("new", backing.Meta{}); return err }},
		{"Fork", func() error { _, err := s.Fork("", backing.Head, "y"); return err }},
		{"RenameBranch", func() error { return s.RenameBranch(x.ID, "x2") }},
		{"SetExtra", func() error { return s.SetExtra("note", json.RawMessage(`"x"`)) }},
	} {
		if err := op.do(); !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("%s on a full disk: %v, want ENOSPC", op.what, err)
		}
		same(op.what)
	}
	m.Unmount(t)

	for range 2 {
		if r := cliResult(t, storeDir, "", "fsck", "--repair"); r.code != 0 {
			t.Errorf("fsck --repair after the refused changes: %v", r)
		}
	}
	if got := strings.Join(ls(t, filepath.Join(storeDir, "names")), " "); got != "a b" {
		t.Errorf("names after fsck --repair: %q, want a b", got)
	}

	os.Remove(fill)
	if err := st.Rename("a", "renamed"); err != nil {
		t.Errorf("Rename with room again: %v", err)
	}
	if _, _, err := st.Create("new", backing.Meta{}); err != nil {
		t.Errorf("Create with room again: %v", err)
	}
	if r := cliResult(t, storeDir, "", "fsck"); r.code != 0 || !strings.HasSuffix(r.stdout, "no problems\n") {
		t.Errorf("fsck at the end: %v", r)
	}
}

// fillDisk writes path until the file system it is on is full.
func fillDisk(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, chunk := range []int{64 << 10, 4 << 10, 1} {
		buf := make([]byte, chunk)
		for {
			if _, err := f.Write(buf); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatal(err)
				}
				break
			}
		}
	}
}
