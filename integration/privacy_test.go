package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/fsnode"
)

// asNobody runs a shell command as the user nobody; args are $1, $2, …,
// and the script `exec "$@"` runs a program.
func asNobody(t *testing.T, script string, args ...string) result {
	t.Helper()
	return runCmd(t, "", "setpriv", append([]string{"--reuid=65534", "--regid=65534", "--clear-groups", "sh", "-c", script, "sh"}, args...)...)
}

// Without -o allow_other no other user can see the mount; with it, they
// can read.
func TestOtherUsers(t *testing.T) {
	m := newMount(t)
	newSession(t, m.Store, "secret", "", jsonMsg("user", "my api key is hunter2"))
	// nobody must reach the mount point itself: the test's temp folders
	// are root's 0700 otherwise.
	for d := m.Dir; d != "/"; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && fi.Mode().Perm()&0o001 == 0 {
			os.Chmod(d, fi.Mode().Perm()|0o001)
		}
	}
	if r := asNobody(t, `cat "$1"/secret/transcript.md`, m.Dir); r.code == 0 || strings.Contains(r.stdout, "hunter2") {
		t.Errorf("another user read the mount without allow_other: %v", r)
	}
	if r := asNobody(t, `ls "$1"`, m.Dir); r.code == 0 {
		t.Errorf("another user listed the mount without allow_other: %v", r)
	}
	m.Unmount(t)

	shared := mountStore(t, m.StoreDir, m.Dir, fsnode.Options{AllowOther: true})
	if r := asNobody(t, `cat "$1"/secret/transcript.md`, shared.Dir); r.code != 0 || !strings.Contains(r.stdout, "hunter2") {
		t.Errorf("with allow_other another user should read: %v", r)
	}
}

// Names that come from session data can never make sessfs write outside
// the store: a name with '/' or '..' is refused, through the mount and the
// CLI, and an imported session id full of them makes no file outside.
func TestNamesCannotEscapeTheStore(t *testing.T) {
	m := newMount(t)
	for _, name := range []string{"..", "../escape", "a/../../escape", ".hidden"} {
		r := cliResult(t, m.StoreDir, "", "new", name)
		if r.code == 0 {
			t.Errorf("sessfs new %q succeeded", name)
		}
	}
	wantErrno(t, "EINVAL", "mkdir of a dot name", `os.mkdir(A[0])`, m.P(".escape"))
	src := filepath.Join(t.TempDir(), "evil.jsonl")
	os.WriteFile(src, []byte(`{"type":"user","sessionId":"../../../../tmp/evil-sessfs","uuid":"u1","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}`+"\n"), 0o600)
	r := cliResult(t, m.StoreDir, "", "import", src)
	if _, err := os.Stat("/tmp/evil-sessfs"); err == nil {
		t.Fatalf("import wrote outside the store: %v", r)
	}
	// Whatever it did, every file of the store is under the store.
	filepath.Walk(m.StoreDir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			abs := filepath.Join(filepath.Dir(p), target)
			if !strings.HasPrefix(abs, m.StoreDir+"/") {
				t.Errorf("%s links outside the store: %s", p, target)
			}
		}
		return nil
	})
}
