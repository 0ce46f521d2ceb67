package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessfs/sessfs/fsnode"
	"github.com/sessfs/sessfs/integration/mounttest"
)

// persistPaths are the paths whose bytes and inode numbers must survive a
// remount, relative to the mount point. append too: each lookup of it is a
// node of its own (TestAppendStableInode), all with the path's one number.
var persistPaths = []string{
	"s", "s/meta.json", "s/transcript.md", "s/messages.jsonl", "s/append", "s/branches/x/append",
	"s/branches", "s/branches/main", "s/branches/main/transcript.md", "s/branches/main/info.json",
	"s/branches/x", "s/branches/x/transcript.md", "s/branches/x/messages.jsonl", "s/branches/x/info.json",
	"s/branches/x/turns", "s/branches/x/turns/3", "s/branches/x/turns/3/transcript.md",
	"s/turns", "s/turns/1", "s/turns/1/transcript.md", "s/turns/1/messages.jsonl", "s/turns/1/fork",
	"made", "made/transcript.md", "archive", "archive/old", "archive/old/transcript.md", "trash",
}

// snapshot reads each path's content (files) and st_ino through the mount.
func snapshot(t *testing.T, dir string) (content, inos map[string]string) {
	t.Helper()
	content, inos = map[string]string{}, map[string]string{}
	var abs []string
	for _, p := range persistPaths {
		abs = append(abs, filepath.Join(dir, p))
	}
	for _, l := range lines(run(t, "stat", append([]string{"-c", "%i|%F|%n"}, abs...)...)) {
		f := strings.SplitN(l, "|", 3)
		rel, _ := filepath.Rel(dir, f[len(f)-1])
		inos[rel] = f[0]
		if strings.HasPrefix(f[1], "regular") && filepath.Base(rel) != "append" {
			content[rel] = cat(t, filepath.Join(dir, rel))
		}
	}
	return content, inos
}

// Everything made through a mount survives unmount and remount with a
// fresh store handle: the same bytes at the same paths, and the same st_ino
// for each path (inode numbers derive from ids), different between paths.
func TestPersistRemount(t *testing.T) {
	storeDir := filepath.Join(t.TempDir(), "store")
	mnt := mountDir(t)
	m := mountStore(t, storeDir, mnt, fsnode.Options{})
	// Build everything through the mount.
	run(t, "mkdir", m.P("s"))
	sh(t, `printf '%s\n%s\n' "$2" "$3" > "$1/append"`, m.P("s"), conversation[0], conversation[1])
	sh(t, `echo second question >> "$1/append"`, m.P("s"))
	run(t, "mkdir", m.P("s", "branches", "x"))
	sh(t, `echo on x >> "$1/branches/x/append"`, m.P("s"))
	wantOK(t, "edit meta.json", pyEditMeta, m.P("s", "meta.json"), `{"title": "Persisted title"}`)
	run(t, "mkdir", m.P("made"))
	sh(t, `echo in made >> "$1/append"`, m.P("made"))
	run(t, "mkdir", m.P("old"))
	sh(t, `echo archived >> "$1/append"`, m.P("old"))
	run(t, "mv", m.P("old"), m.P("archive", "old"))
	run(t, "mkdir", m.P("gone"))
	run(t, "rmdir", m.P("gone"))
	content, inos := snapshot(t, mnt)
	trash := ls(t, m.P("trash"))
	top := ls(t, m.Dir)

	seen := map[string]string{}
	for p, ino := range inos {
		if q, dup := seen[ino]; dup {
			t.Errorf("st_ino %s shared by %s and %s", ino, p, q)
		}
		seen[ino] = p
	}
	m.Unmount(t)

	m2 := mountStore(t, storeDir, mnt, fsnode.Options{})
	content2, inos2 := snapshot(t, mnt)
	for _, p := range persistPaths {
		if inos[p] != inos2[p] {
			t.Errorf("%s: st_ino %s before the remount, %s after", p, inos[p], inos2[p])
		}
		if content[p] != content2[p] {
			t.Errorf("%s: content differs after the remount:\nbefore %q\nafter  %q", p, trunc(content[p]), trunc(content2[p]))
		}
	}
	if got := ls(t, m2.Dir); strings.Join(got, " ") != strings.Join(top, " ") {
		t.Errorf("ls MOUNT after remount = %q, before %q", got, top)
	}
	if got := ls(t, m2.P("trash")); len(got) != 1 || strings.Join(got, " ") != strings.Join(trash, " ") {
		t.Errorf("ls trash after remount = %q, before %q", got, trash)
	}
	if got := metaOf(t, m2.P("s", "meta.json"))["title"]; got != "Persisted title" {
		t.Errorf("title after remount = %v", got)
	}
	// A second remount on another mount point: same inode numbers there.
	m2.Unmount(t)
	m3 := mountStore(t, storeDir, mountDir(t), fsnode.Options{})
	_, inos3 := snapshot(t, m3.Dir)
	for _, p := range persistPaths {
		if inos[p] != inos3[p] {
			t.Errorf("%s: st_ino %s on the first mount, %s on another mount point", p, inos[p], inos3[p])
		}
	}
}

// Two mounts of one store, in two processes: each sees the other's
// appends and new sessions within about a second.
func TestPersistSecondMount(t *testing.T) {
	a := newMount(t)
	newSession(t, a.Store, "s", "", conversation...)
	b := startMountProc(t, a.StoreDir, mountDir(t))
	bs := filepath.Join(b.Dir, "s")
	before := cat(t, filepath.Join(bs, "transcript.md")) // cached in the kernel for b

	sh(t, `echo from-mount-a >> "$1/append"`, a.P("s"))
	eventually(t, 2*time.Second, "mount b showing mount a's append", func() (bool, string) {
		got := cat(t, filepath.Join(bs, "transcript.md"))
		return strings.Contains(got, "from-mount-a"), fmt.Sprintf("%d bytes (was %d)", len(got), len(before))
	})
	sh(t, `printf '%s\n' "$2" >> "$1/append"`, bs, jsonMsg("assistant", "from-mount-b"))
	eventually(t, 2*time.Second, "mount a showing mount b's append", func() (bool, string) {
		got := cat(t, a.P("s", "transcript.md"))
		return strings.Contains(got, "from-mount-b"), fmt.Sprintf("%d bytes", len(got))
	})
	eventually(t, 2*time.Second, "sizes agreeing on both mounts", func() (bool, string) {
		x, y := statSize(t, a.P("s", "transcript.md")), statSize(t, filepath.Join(bs, "transcript.md"))
		return x == y && x == int64(len(cat(t, a.P("s", "transcript.md")))), fmt.Sprintf("a %d, b %d", x, y)
	})
	run(t, "mkdir", a.P("made-on-a"))
	eventually(t, 2*time.Second, "mount b listing a session made on mount a", func() (bool, string) {
		got := ls(t, b.Dir)
		return contains(got, "made-on-a"), fmt.Sprint(got)
	})
	// Both in the store, in order.
	ms := contents(storeMessages(t, a.StoreDir, "s", ""))
	if n := len(ms); n != len(conversation)+2 || ms[n-2] != "from-mount-a" || ms[n-1] != "from-mount-b" {
		t.Errorf("store: %q", ms)
	}
}

// The mount refuses a mount point inside the store, and a store inside
// the mount point, with a message and a non-zero exit, and mounts nothing.
func TestMountInsideStoreRefused(t *testing.T) {
	requireFUSE(t)
	needCLI(t)
	base := t.TempDir()
	storeDir := filepath.Join(base, "store")
	cli(t, storeDir, "new", "s")
	for _, c := range []struct{ what, store, mnt string }{
		{"mount point inside the store", storeDir, filepath.Join(storeDir, "sub")},
		{"store inside the mount point", storeDir, base},
	} {
		if err := os.MkdirAll(c.mnt, 0o755); err != nil {
			t.Fatal(err)
		}
		register(c.mnt)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		cmd := exec.CommandContext(ctx, sessfsBin, "mount", "--store", c.store, c.mnt)
		out, err := cmd.CombinedOutput()
		timedOut := ctx.Err() != nil
		cancel()
		if timedOut {
			// It mounted and served: clear it before anything removes base.
			mounttest.ForceUnmount(c.mnt)
			t.Fatalf("%s: sessfs mount did not refuse, it served for 10 s", c.what)
		}
		if err == nil {
			t.Errorf("%s: sessfs mount --store %s %s exited 0, want a refusal", c.what, c.store, c.mnt)
		}
		if strings.TrimSpace(string(out)) == "" {
			t.Errorf("%s: sessfs mount failed without a message", c.what)
		}
		if mounttest.IsMountPoint(c.mnt) {
			mounttest.ForceUnmount(c.mnt)
			t.Errorf("%s: %s was mounted", c.what, c.mnt)
		}
		t.Logf("%s: %s", c.what, strings.TrimSpace(string(out)))
	}
}
