package integration

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

// storeFiles lists a store's files and folders with their sizes, less the
// derived search index, which a mount's daemon updates on its own time.
func storeFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "index" {
			return filepath.SkipDir
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("%s %v %d", rel, fi.Mode(), fi.Size()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// branchMessages is each branch's messages.jsonl of the session folder
// dir, by branch name, read with cat.
func branchMessages(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, b := range ls(t, filepath.Join(dir, "branches")) {
		out[b] = cat(t, filepath.Join(dir, "branches", b, "messages.jsonl"))
	}
	return out
}

// TestTmpEphemeral: through a mount of `sessfs mount`, a session made in
// tmp/ (a real one of ../shared/data among them) appends, forks and reads
// as any session, writes nothing into the store's folder, is kept with its
// id, branches and messages byte for byte by mv tmp/x x, refuses a name
// the store has, and is gone after a remount.
func TestTmpEphemeral(t *testing.T) {
	src := sharedData(t, "claude-code/hello-world-script.jsonl")[0]
	storeDir := filepath.Join(t.TempDir(), "store")
	real := strings.TrimSpace(cli(t, storeDir, "import", src))
	mnt := mountDir(t)
	p := startMountProc(t, storeDir, mnt)
	if !slices.Contains(ls(t, mnt), "tmp") {
		t.Fatalf("ls %s = %q, without tmp", mnt, ls(t, mnt))
	}
	before := storeFiles(t, storeDir)

	// A session typed by hand: append, read, fork, append to the fork.
	x := filepath.Join(mnt, "tmp", "x")
	run(t, "mkdir", x)
	sh(t, `echo hello-ephemeral >> "$1/append"`, x)
	if md := cat(t, filepath.Join(x, "transcript.md")); !strings.Contains(md, "hello-ephemeral") {
		t.Errorf("tmp/x/transcript.md:\n%s", md)
	}
	run(t, "mkdir", filepath.Join(x, "branches", "y"))
	sh(t, `echo on-the-fork >> "$1/branches/y/append"`, x)
	if got := contents(messagesOf(t, filepath.Join(x, "branches", "y"))); !slices.Equal(got, []string{"hello-ephemeral", "on-the-fork"}) {
		t.Errorf("tmp/x/branches/y: %q", got)
	}

	// A real session, its stored lines appended as they are, and forked
	// after its first turn.
	r := filepath.Join(mnt, "tmp", "r")
	run(t, "mkdir", r)
	sh(t, `cat "$1/messages.jsonl" > "$2/append"`, filepath.Join(mnt, real), r)
	if got, want := cat(t, filepath.Join(r, "messages.jsonl")), cat(t, filepath.Join(mnt, real, "messages.jsonl")); got != want {
		t.Fatalf("tmp/r/messages.jsonl is not the real session's:\n%s\nwant\n%s", got, want)
	}
	run(t, "mkdir", filepath.Join(r, "turns", "1", "fork", "early"))
	sh(t, `echo a-new-way >> "$1/branches/early/append"`, r)
	meta, err := backing.DecodeMeta([]byte(cat(t, filepath.Join(r, "meta.json"))))
	if err != nil {
		t.Fatal(err)
	}

	// The command line makes one through the mount.
	if got := strings.TrimSpace(cli(t, storeDir, "new", "--ephemeral", "--title", "From the CLI", "e")); got != filepath.Join(mnt, "tmp", "e") {
		t.Errorf("new --ephemeral printed %q", got)
	}
	if m, err := backing.DecodeMeta([]byte(cat(t, filepath.Join(mnt, "tmp", "e", "meta.json")))); err != nil || m.Title != "From the CLI" {
		t.Errorf("tmp/e/meta.json: %+v, %v", m, err)
	}

	// Nothing of it in the store's folder.
	if after := storeFiles(t, storeDir); !slices.Equal(after, before) {
		t.Errorf("the store's folder changed with tmp/ alone:\n%s\nwas\n%s", strings.Join(after, "\n"), strings.Join(before, "\n"))
	}
	for _, needle := range []string{meta.ID, "hello-ephemeral", "a-new-way", "From the CLI"} {
		if r := runCmd(t, "", "grep", "-rlF", needle, storeDir); r.code != 1 {
			t.Errorf("grep -r %q in the store: %v", needle, r)
		}
	}

	// Kept: mv to the root.
	want := branchMessages(t, r)
	if len(want) != 2 {
		t.Fatalf("tmp/r has branches %q, want main and early", slices.Sorted(maps.Keys(want)))
	}
	wantErrno(t, "EEXIST", "mv tmp/r onto a name the store has", `os.rename(A[0], A[1])`, r, filepath.Join(mnt, real))
	wantErrno(t, "EPERM", "mv of a kept session into tmp/", `os.rename(A[0], A[1])`, filepath.Join(mnt, real), filepath.Join(mnt, "tmp", "back"))
	run(t, "mv", r, filepath.Join(mnt, "kept"))
	if got := ls(t, filepath.Join(mnt, "tmp")); !slices.Equal(got, []string{"e", "x"}) {
		t.Errorf("ls tmp after mv = %q, want [e x]", got)
	}
	kept := filepath.Join(mnt, "kept")
	got := branchMessages(t, kept)
	for b, w := range want {
		if got[b] != w {
			t.Errorf("kept/branches/%s/messages.jsonl differs from what tmp/r had:\n%s\nwant\n%s", b, got[b], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("kept has branches %q, want %q", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
	st, err := filestore.Open(storeDir, filestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s, err := st.Session("kept"); err != nil || s.ID() != meta.ID {
		t.Errorf("the store's kept: %v, want session %s", err, meta.ID)
	}
	if n := len(storeMessages(t, storeDir, "kept", "early")); n != len(parseJSONL(t, want["early"])) {
		t.Errorf("the store's kept/early has %d messages", n)
	}

	// Gone at unmount: a new daemon has an empty tmp/.
	p.stop(t)
	startMountProc(t, storeDir, mnt)
	if got := ls(t, filepath.Join(mnt, "tmp")); len(got) != 0 {
		t.Errorf("ls tmp after a remount = %q, want nothing", got)
	}
	if _, err := os.Stat(filepath.Join(mnt, "kept", "meta.json")); err != nil {
		t.Errorf("kept after a remount: %v", err)
	}
}
