package integration

import (
	"strings"
	"testing"
)

// Every entry of every kind of folder (the root, archive/, trash/, a
// session, branches/, a branch, turns/, a turn, fork/, and an editor's
// temporary file and lock link) lists the inode number (d_ino) that stat
// gives it (st_ino), and every number is below 2^63, apart from go-fuse's
// own range. d_ino was 4294967295 ("unknown") for most entries.
func TestInodeDirentMatchesStat(t *testing.T) {
	m := newMount(t)
	newSession(t, m.Store, "s", "", conversation...)
	newSession(t, m.Store, "archived", "", conversation...)
	newSession(t, m.Store, "trashed", "", conversation...)
	run(t, "mkdir", m.P("s", "branches", "x"))
	run(t, "mv", m.P("archived"), m.P("archive", "archived"))
	run(t, "rmdir", m.P("trashed"))
	wantOK(t, "make an editor's swap file and lock link", `
open(os.path.join(A[0], ".meta.json.swp"), "w").write("swap")
os.symlink("user@host.1", os.path.join(A[0], ".#meta.json"))
`, m.P("s"))
	printed := wantOK(t, "compare d_ino with st_ino", `
folders = kinds = 0
for root, dirs, files in os.walk(A[0]):
    folders += 1
    for e in os.scandir(root):
        kinds += 1
        st = os.lstat(e.path)
        if e.inode() != st.st_ino:
            print("MISMATCH %s d_ino %d st_ino %d" % (e.path, e.inode(), st.st_ino))
        if st.st_ino >= 1 << 63:
            print("HIGH %s %d" % (e.path, st.st_ino))
print("checked %d entries in %d folders" % (kinds, folders))
`, m.Dir)
	for _, l := range lines(printed) {
		if !strings.HasPrefix(l, "checked") {
			t.Error(l)
		}
	}
	t.Log(printed)
	for _, want := range []string{"archive/archived/turns/2/fork", "trash/trashed~", "s/branches/x/turns/1", "s/.#meta.json"} {
		if got := run(t, "find", m.Dir); !strings.Contains(got, want) {
			t.Errorf("the walk did not reach %s", want)
		}
	}
}
