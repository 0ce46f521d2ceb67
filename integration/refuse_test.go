package integration

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/fsnode"
)

// generated lists files sessfs makes, in a session s.
func generated(m *mount) []string {
	return []string{
		m.P("s", "transcript.md"), m.P("s", "messages.jsonl"),
		m.P("s", "branches", "main", "transcript.md"), m.P("s", "branches", "main", "info.json"),
		m.P("s", "turns", "1", "transcript.md"), m.P("s", "turns", "1", "messages.jsonl"),
	}
}

// Generated files cannot be opened for writing, by root too: EACCES.
func TestRefuseWriteGenerated(t *testing.T) {
	m, _ := appendFixture(t)
	for _, p := range generated(m) {
		wantErrno(t, "EACCES", "open O_WRONLY "+p, `os.open(A[0], os.O_WRONLY)`, p)
		wantErrno(t, "EACCES", "open O_RDWR "+p, `os.open(A[0], os.O_RDWR)`, p)
		wantErrno(t, "EACCES", "open O_WRONLY|O_APPEND "+p, `os.open(A[0], os.O_WRONLY | os.O_APPEND)`, p)
	}
	if r := shResult(t, `echo x >> "$1"`, m.P("s", "transcript.md")); r.code == 0 {
		t.Errorf("echo >> transcript.md succeeded")
	}
	if n := len(messagesOf(t, m.P("s"))); n != len(conversation) {
		t.Errorf("%d messages, want %d", n, len(conversation))
	}
}

// chmod, chown, truncate and utimes of generated files: EPERM.
func TestRefuseSetattrGenerated(t *testing.T) {
	m, _ := appendFixture(t)
	for _, p := range generated(m) {
		wantErrno(t, "EPERM", "chmod "+p, `os.chmod(A[0], 0o666)`, p)
		wantErrno(t, "EPERM", "chown "+p, `os.chown(A[0], 1, 1)`, p)
		wantErrno(t, "EPERM", "truncate "+p, `os.truncate(A[0], 0)`, p)
		wantErrno(t, "EPERM", "utime "+p, `os.utime(A[0], (1000000000, 1000000000))`, p)
	}
	// Nothing changed.
	if n := len(messagesOf(t, m.P("s"))); n != len(conversation) {
		t.Errorf("%d messages, want %d", n, len(conversation))
	}
	if got := strings.TrimSpace(run(t, "stat", "-c", "%a", m.P("s", "transcript.md"))); got != "444" {
		t.Errorf("transcript.md mode %s, want 444", got)
	}
}

// Generated files and folders cannot be unlinked or renamed: EPERM.
func TestRefuseUnlinkGenerated(t *testing.T) {
	m, _ := appendFixture(t)
	for _, p := range append(generated(m), m.P("s", "meta.json"), m.P("s", "append"), m.P("s", "branches", "main", "append")) {
		wantErrno(t, "EPERM", "unlink "+p, `os.unlink(A[0])`, p)
		wantErrno(t, "EPERM", "rename "+p, `os.rename(A[0], os.path.join(os.path.dirname(A[0]), "renamed"))`, p)
	}
	if r := runCmd(t, "", "rm", "-f", m.P("s", "transcript.md")); r.code == 0 {
		t.Errorf("rm -f transcript.md succeeded")
	}
	if got := ls(t, m.P("s")); !contains(got, "transcript.md") || !contains(got, "meta.json") {
		t.Errorf("a generated file went away: %q", got)
	}
}

// symlink, link and mknod in a session or branch folder: EPERM.
func TestRefuseLinks(t *testing.T) {
	m, _ := appendFixture(t)
	for _, dir := range []string{m.P("s"), m.P("s", "branches", "main"), m.P("s", "branches"), m.Dir} {
		wantErrno(t, "EPERM", "symlink in "+dir, `os.symlink("transcript.md", os.path.join(A[0], "ln"))`, dir)
		wantErrno(t, "EPERM", "link in "+dir, `os.link(A[1], os.path.join(A[0], "hard"))`, dir, m.P("s", "transcript.md"))
		wantErrno(t, "EPERM", "mknod fifo in "+dir, `os.mknod(os.path.join(A[0], "fifo"), 0o600 | stat.S_IFIFO)`, dir)
	}
	if r := runCmd(t, "", "ln", "-s", "x", m.P("s", "ln")); r.code == 0 {
		t.Errorf("ln -s in a session folder succeeded")
	}
}

// Extended attributes are disabled: setting one fails with EOPNOTSUPP
// (ENOTSUP), listing them shows none.
func TestRefuseXattrs(t *testing.T) {
	m, _ := appendFixture(t)
	for _, p := range []string{m.P("s", "transcript.md"), m.P("s", "meta.json"), m.P("s")} {
		got, _ := py(t, `os.setxattr(A[0], "user.test", b"v")`, p)
		if got != "ERR EOPNOTSUPP" && got != "ERR ENOTSUP" {
			t.Errorf("setxattr %s: %s, want ERR EOPNOTSUPP", p, got)
		}
		got, printed := py(t, `print(len(os.listxattr(A[0])))`, p)
		if got == "OK" && printed != "0" {
			t.Errorf("listxattr %s: %s attributes, want none", p, printed)
		}
	}
}

// Names: mkdir of an existing session is EEXIST, a name over 255 bytes is
// ENAMETOOLONG, a leading '.' is EINVAL, for sessions and branches alike.
func TestRefuseNames(t *testing.T) {
	m, _ := appendFixture(t)
	long := strings.Repeat("n", 256)
	wantErrno(t, "EEXIST", "mkdir an existing session", `os.mkdir(A[0])`, m.P("s"))
	wantErrno(t, "EEXIST", "mkdir archive", `os.mkdir(A[0])`, m.P("archive"))
	wantErrno(t, "EEXIST", "mkdir branches/main", `os.mkdir(A[0])`, m.P("s", "branches", "main"))
	wantErrno(t, "ENAMETOOLONG", "mkdir a 256-byte session name", `os.mkdir(A[0])`, filepath.Join(m.Dir, long))
	wantErrno(t, "ENAMETOOLONG", "mkdir a 256-byte branch name", `os.mkdir(A[0])`, m.P("s", "branches", long))
	wantErrno(t, "ENAMETOOLONG", "rename a session to 256 bytes", `os.rename(A[0], A[1])`, m.P("s"), filepath.Join(m.Dir, long))
	wantErrno(t, "EINVAL", "mkdir .hidden", `os.mkdir(A[0])`, m.P(".hidden"))
	wantErrno(t, "EINVAL", "mkdir branches/.hidden", `os.mkdir(A[0])`, m.P("s", "branches", ".hidden"))
	wantErrno(t, "EINVAL", "rename a session to .hidden", `os.rename(A[0], A[1])`, m.P("s"), m.P(".hidden"))
	// 255 bytes is allowed.
	ok := strings.Repeat("k", 255)
	wantOK(t, "mkdir a 255-byte name", `os.mkdir(A[0])`, filepath.Join(m.Dir, ok))
	if got := ls(t, m.Dir); len(got) != 2+len(views) || !contains(got, ok) || !contains(got, "s") {
		t.Errorf("ls = %q, want s, the 255-byte session and the views", got)
	}
	if got := run(t, "stat", "-f", "-c", "%l", m.Dir); strings.TrimSpace(got) != "255" {
		t.Errorf("statfs name limit = %s, want 255", strings.TrimSpace(got))
	}
	// df shows the space of the store's filesystem: its block size, blocks
	// and files in all.
	if got, want := run(t, "stat", "-f", "-c", "%S %b %c", m.Dir), run(t, "stat", "-f", "-c", "%S %b %c", m.StoreDir); got != want {
		t.Errorf("statfs of the mount = %q, of the store = %q", got, want)
	}
}

// A read-only mount reads as usual and refuses every change with EROFS.
func TestRefuseReadOnlyMount(t *testing.T) {
	storeDir := filepath.Join(t.TempDir(), "store")
	rw := mountStore(t, storeDir, mountDir(t), fsnode.Options{})
	newSession(t, rw.Store, "s", "", conversation...)
	md := cat(t, rw.P("s", "transcript.md"))
	rw.Unmount(t)

	m := mountStore(t, storeDir, mountDir(t), fsnode.Options{ReadOnly: true})
	if got := cat(t, m.P("s", "transcript.md")); got != md {
		t.Errorf("read-only mount: transcript differs")
	}
	wantErrno(t, "EROFS", "open append for writing", `os.open(A[0], os.O_WRONLY | os.O_APPEND)`, m.P("s", "append"))
	if r := shResult(t, `echo hi >> "$1"`, m.P("s", "append")); r.code == 0 || !strings.Contains(r.stderr, "Read-only") {
		t.Errorf("echo >> append on a read-only mount: %v, want a Read-only file system error", r)
	}
	wantErrno(t, "EROFS", "mkdir a session", `os.mkdir(A[0])`, m.P("new"))
	wantErrno(t, "EROFS", "mkdir a branch", `os.mkdir(A[0])`, m.P("s", "branches", "x"))
	wantErrno(t, "EROFS", "rmdir a session", `os.rmdir(A[0])`, m.P("s"))
	wantErrno(t, "EROFS", "rename a session", `os.rename(A[0], A[1])`, m.P("s"), m.P("t"))
	wantErrno(t, "EROFS", "write meta.json", `os.open(A[0], os.O_WRONLY | os.O_TRUNC)`, m.P("s", "meta.json"))
	wantErrno(t, "EROFS", "create a file", `open(A[0], "w")`, m.P("s", "scratch.tmp"))
	if n := len(storeMessages(t, storeDir, "s", "")); n != len(conversation) {
		t.Errorf("store: %d messages, want %d", n, len(conversation))
	}
}

// fsync and fsyncdir succeed on every file and folder: editors and
// databases call them and give up when they fail.
func TestFsyncSucceeds(t *testing.T) {
	m, dir := appendFixture(t)
	for _, p := range []string{dir + "/transcript.md", dir + "/messages.jsonl", dir + "/meta.json", dir + "/append",
		dir + "/branches/main/info.json", dir + "/turns/1/messages.jsonl",
		dir, dir + "/branches", dir + "/branches/main", dir + "/turns", dir + "/turns/1", dir + "/turns/1/fork",
		m.Dir, m.P("trash"), m.P("archive")} {
		if got, _ := py(t, `
fd = os.open(A[0], os.O_RDONLY)
os.fsync(fd)
os.close(fd)
`, p); got != "OK" {
			t.Errorf("fsync %s: %s, want OK", p, got)
		}
	}
}
