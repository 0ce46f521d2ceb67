package integration

import (
	"strings"
	"testing"
)

// A session in trash/ is read-only until restored, all the way: every
// change through the mount fails with EROFS where it starts (open for
// writing, mkdir, create, rename, rmdir, touch), and the store is left
// byte for byte as it was. It used to accept appends and forks.
func TestTrashReadOnly(t *testing.T) {
	m := newMount(t)
	s := newSession(t, m.Store, "s", "Trashed", conversation...)
	run(t, "mkdir", m.P("s", "branches", "x"))
	run(t, "rmdir", m.P("s"))
	dir := m.P("trash", "s~"+s.ID())
	before := storeSnapshot(t, m.StoreDir)
	md := cat(t, dir+"/transcript.md")

	for _, c := range []struct{ what, code string }{
		{"open append for writing", `os.open(A[0] + "/append", os.O_WRONLY | os.O_APPEND)`},
		{"open a branch's append for writing", `os.open(A[0] + "/branches/x/append", os.O_WRONLY)`},
		{"truncate append", `os.truncate(A[0] + "/append", 0)`},
		{"touch append", `os.utime(A[0] + "/append")`},
		{"mkdir branches/y", `os.mkdir(A[0] + "/branches/y")`},
		{"mkdir turns/1/fork/y", `os.mkdir(A[0] + "/turns/1/fork/y")`},
		{"mkdir in a branch's turn fork", `os.mkdir(A[0] + "/branches/x/turns/2/fork/y")`},
		{"rename a branch", `os.rename(A[0] + "/branches/x", A[0] + "/branches/z")`},
		{"rmdir a branch", `os.rmdir(A[0] + "/branches/x")`},
		{"rmdir the default branch", `os.rmdir(A[0] + "/branches/main")`},
		{"open meta.json for writing", `os.open(A[0] + "/meta.json", os.O_WRONLY)`},
		{"write meta.json", `open(A[0] + "/meta.json", "w").write("{}")`},
		{"truncate meta.json", `os.truncate(A[0] + "/meta.json", 0)`},
		{"touch meta.json", `os.utime(A[0] + "/meta.json")`},
		{"create an editor's temporary", `open(A[0] + "/meta.json.tmp", "w")`},
		{"create a file", `open(A[0] + "/notes.md", "w")`},
		{"unlink meta.json", `os.unlink(A[0] + "/meta.json")`},
	} {
		wantErrno(t, "EROFS", c.what+" in the trash", c.code, dir)
	}
	if r := shResult(t, `echo hi >> "$1/append"`, dir); r.code == 0 || !strings.Contains(r.stderr, "Read-only file system") {
		t.Errorf("echo hi >> append in the trash: %v, want Read-only file system", r)
	}
	if got := strings.TrimSpace(run(t, "stat", "-c", "%a", dir+"/meta.json")); got != "444" {
		t.Errorf("meta.json in the trash: mode %s, want 444", got)
	}
	if after := storeSnapshot(t, m.StoreDir); after != before {
		t.Errorf("changes refused in the trash changed the store")
	}
	if got := cat(t, dir+"/transcript.md"); got != md {
		t.Errorf("the trashed transcript changed")
	}

	// Restored, it takes changes again.
	run(t, "mv", dir, m.P("back"))
	sh(t, `echo hi again >> "$1/append"`, m.P("back"))
	run(t, "mkdir", m.P("back", "branches", "y"))
	if n := len(storeMessages(t, m.StoreDir, "back", "")); n != len(conversation)+1 {
		t.Errorf("after restore: %d messages, want %d", n, len(conversation)+1)
	}
	if got := strings.TrimSpace(run(t, "stat", "-c", "%a", m.P("back", "meta.json"))); got != "644" {
		t.Errorf("meta.json restored: mode %s, want 644", got)
	}
}
