package integration

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// copyFixture is a mount with session s of 300 messages (150 turns) and a
// fork b after turn 100 that has messages of its own: enough files, turns
// and branches for a copy to meet every kind of node.
func copyFixture(t *testing.T) *mount {
	t.Helper()
	m := newMount(t)
	var msgs []string
	for i := range 150 {
		msgs = append(msgs, jsonMsg("user", fmt.Sprintf("question %d", i)), jsonMsg("assistant", fmt.Sprintf("answer %d, with some words to copy", i)))
	}
	newSession(t, m.Store, "s", "To be copied", msgs...)
	run(t, "mkdir", m.P("s", "turns", "100", "fork", "b"))
	sh(t, `echo on the fork >> "$1"`, m.P("s", "branches", "b", "append"))
	return m
}

// sameTree compares two trees byte for byte: the same folders and files,
// the same bytes in each. It returns the number of files compared.
func sameTree(t *testing.T, src, dst string) int {
	t.Helper()
	want, got := tree(t, src), tree(t, dst)
	files := 0
	for _, rel := range slices.Sorted(maps.Keys(want)) {
		copied, ok := got[rel]
		switch {
		case !ok:
			t.Errorf("%s: not copied", rel)
		case copied != want[rel]:
			t.Errorf("%s: copied as %s, is %s", rel, copied, want[rel])
		case strings.HasPrefix(copied, "file "):
			files++
		}
	}
	// Nothing more in the copy than in the source.
	for _, rel := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[rel]; !ok {
			t.Errorf("%s: in the copy only", rel)
		}
	}
	return files
}

// cp -r and cp -a of a session folder and of a branch folder out of the
// mount exit 0 and make byte-identical trees; so do rsync -a and tar c.
// They failed on append ("replaced while being copied"), which showed a
// new inode number on every lookup.
func TestCopyOut(t *testing.T) {
	m := copyFixture(t)
	out := t.TempDir()
	for _, src := range []string{m.P("s"), m.P("s", "branches", "b")} {
		name := strings.ReplaceAll(strings.TrimPrefix(src, m.Dir+"/"), "/", "-")
		for _, tool := range [][]string{{"cp", "-r"}, {"cp", "-a"}, {"rsync", "-a"}} {
			if _, err := exec.LookPath(tool[0]); err != nil {
				if os.Getenv("SESSFS_REQUIRE_FUSE") == "1" {
					t.Errorf("%s is not installed, and SESSFS_REQUIRE_FUSE=1", tool[0])
				} else {
					t.Logf("%s is not installed: skipped", tool[0])
				}
				continue
			}
			dst := filepath.Join(out, name+"-"+tool[0]+tool[1])
			from := src
			if tool[0] == "rsync" {
				from += "/" // the folder's contents into dst
			}
			if r := runCmd(t, "", tool[0], tool[1], from, dst); r.code != 0 {
				t.Errorf("%s %s %s: %v", tool[0], tool[1], src, r)
				continue
			}
			n := sameTree(t, src, dst)
			t.Logf("%s %s %s: exit 0, %d files identical", tool[0], tool[1], name, n)
		}
		dst := filepath.Join(out, name+"-tar")
		os.Mkdir(dst, 0o700)
		if r := shResult(t, `set -e; tar -C "$1" -cf - . | tar -C "$2" -xf -`, src, dst); r.code != 0 {
			t.Errorf("tar c of %s: %v", src, r)
			continue
		}
		t.Logf("tar c %s: exit 0, %d files identical", name, sameTree(t, src, dst))
	}
}

// mv of a session out of the mount copies it whole, then cannot remove
// the session's files (EPERM): mv exits 1 and says so for each file, and
// the session stays where it was, untouched and out of the trash.
func TestCopyOutMove(t *testing.T) {
	m := copyFixture(t)
	before := cat(t, m.P("s", "messages.jsonl"))
	dst := filepath.Join(t.TempDir(), "moved")
	r := runCmd(t, "", "mv", m.P("s"), dst)
	if r.code == 0 || strings.Contains(r.stderr, "replaced while being copied") || !strings.Contains(r.stderr, "cannot remove") {
		t.Errorf("mv of a session out of the mount: %v; want exit 1 with only 'cannot remove' errors", r)
	}
	t.Logf("mv: exit %d, %d files copied identical", r.code, sameTree(t, m.P("s"), dst))
	if got := ls(t, m.Dir); !slices.Equal(got, rootOf("s")) {
		t.Errorf("ls MOUNT after mv = %q", got)
	}
	if got := cat(t, m.P("s", "messages.jsonl")); got != before {
		t.Errorf("mv changed the session")
	}
}
