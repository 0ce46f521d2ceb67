package integration

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
	"github.com/sessfs/sessfs/fsnode"
)

// storeSnapshot is every path of a store and what it is, a file with a
// hash of its bytes: two snapshots are equal when nothing changed. The
// kept piece sizes and message indexes are left out: derived, they grow
// as the mount reads.
func storeSnapshot(t *testing.T, root string) string {
	t.Helper()
	var rows []string
	for rel, what := range tree(t, root) {
		if derived := func(dir string) bool {
			return rel == filepath.Join("index", dir) || strings.HasPrefix(rel, filepath.Join("index", dir)+"/")
		}; derived("sizes") || derived("logs") {
			continue
		}
		rows = append(rows, rel+": "+what)
	}
	sort.Strings(rows)
	return strings.Join(rows, "\n")
}

// tree is what every path under root is, by its path relative to root
// ("." for root): "folder", "link to TARGET", "file of N bytes, sha256 H",
// or another type's name. A path it cannot read fails the test.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	paths := map[string]string{}
	err := filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case fi.IsDir():
			paths[rel] = "folder"
		case fi.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			paths[rel] = "link to " + target
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			paths[rel] = fmt.Sprintf("file of %d bytes, sha256 %x", len(data), sha256.Sum256(data))
		default:
			paths[rel] = fi.Mode().Type().String()
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walk %s: %v", root, err)
	}
	return paths
}

// Every kind of bad input through the mount fails with its exact errno and
// leaves the store byte for byte as it was.
func TestBadInput(t *testing.T) {
	requireFUSE(t)
	storeDir := filepath.Join(t.TempDir(), "store")
	// A small message limit, so that oversize cases are quick.
	st, err := filestore.Open(storeDir, filestore.Options{MaxMessage: 4096})
	if err != nil {
		t.Fatal(err)
	}
	s := newSession(t, st, "s", "", jsonMsg("user", "q1"), jsonMsg("assistant", "a1"), jsonMsg("user", "q2"))
	newSession(t, st, "s2", "")
	b, err := s.Fork("", backing.Head, "b")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Fork(b.ID, backing.Head, "c"); err != nil {
		t.Fatal(err)
	}
	mnt := mountDir(t)
	register(mnt)
	server, err := fsnode.MountServer(mnt, fsnode.New(st, fsnode.Options{}), fsnode.MountOptions(st, fsnode.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Unmount(); server.Wait() })

	// Python helpers: W writes bytes to s/append in one os.write, C does so
	// and closes (text mode commits at close).
	const pre = `
M = A[0]
def W(data):
    fd = os.open(M + "/s/append", os.O_WRONLY | os.O_APPEND)
    try:
        os.write(fd, data)
    finally:
        try: os.close(fd)
        except OSError: pass
def C(data):
    fd = os.open(M + "/s/append", os.O_WRONLY | os.O_APPEND)
    os.write(fd, data)
    os.close(fd)
def meta(doc):
    with open(M + "/s/meta.json", "w") as f:
        f.write(doc)
`
	long := strings.Repeat("n", 256)
	cases := []struct{ name, errno, code string }{
		{"invalid JSON", "EINVAL", `W(b'{"role":\n')`},
		{"junk after the object", "EINVAL", `W(b'{"role":"user","content":"x"} junk\n')`},
		{"two objects on a line", "EINVAL", `W(b'{"role":"user","content":"x"}{"role":"user","content":"y"}\n')`},
		{"missing role", "EINVAL", `W(b'{"content":"x"}\n')`},
		{"missing content", "EINVAL", `W(b'{"role":"user"}\n')`},
		{"empty object", "EINVAL", `W(b'{}\n')`},
		{"role a number", "EINVAL", `W(b'{"role":1,"content":"x"}\n')`},
		{"role empty", "EINVAL", `W(b'{"role":"","content":"x"}\n')`},
		{"role null", "EINVAL", `W(b'{"role":null,"content":"x"}\n')`},
		{"content a number", "EINVAL", `W(b'{"role":"user","content":3}\n')`},
		{"content null", "EINVAL", `W(b'{"role":"user","content":null}\n')`},
		{"content an object", "EINVAL", `W(b'{"role":"user","content":{"a":1}}\n')`},
		{"id a number", "EINVAL", `W(b'{"role":"user","content":"x","id":7}\n')`},
		{"ts an object", "EINVAL", `W(b'{"role":"user","content":"x","ts":{}}\n')`},
		{"invalid UTF-8 in JSON", "EINVAL", `W(b'{"role":"user","content":"\xff\xfe"}\n')`},
		{"NUL byte in a JSON string", "EINVAL", `W(b'{"role":"user","content":"a\x00b"}\n')`},
		{"a valid line then an invalid one", "EINVAL", `W(b'{"role":"user","content":"ok"}\n{"role":"user"}\n')`},
		{"an invalid line then a valid one", "EINVAL", `W(b'{"content":"x"}\n{"role":"user","content":"ok"}\n')`},
		{"invalid UTF-8 text", "EINVAL", `C(b'plain text \xff\n')`},
		{"JSON message over the limit", "EFBIG", `W(b'{"role":"user","content":"' + b'x' * 5000 + b'"}\n')`},
		{"text message over the limit", "EFBIG", `C(b'x' * 5000)`},
		{"write transcript.md", "EACCES", `open(M + "/s/transcript.md", "w")`},
		{"write messages.jsonl", "EACCES", `open(M + "/s/messages.jsonl", "a")`},
		{"write info.json", "EACCES", `open(M + "/s/branches/main/info.json", "r+")`},
		{"write a turn's transcript", "EACCES", `open(M + "/s/turns/1/transcript.md", "w")`},
		{"chmod transcript.md", "EPERM", `os.chmod(M + "/s/transcript.md", 0o666)`},
		{"truncate transcript.md", "EPERM", `os.truncate(M + "/s/transcript.md", 0)`},
		{"utime transcript.md", "EPERM", `os.utime(M + "/s/transcript.md", (0, 0))`},
		{"chown messages.jsonl", "EPERM", `os.chown(M + "/s/messages.jsonl", 1, 1)`},
		{"chmod a session folder", "EPERM", `os.chmod(M + "/s", 0o777)`},
		{"unlink transcript.md", "EPERM", `os.unlink(M + "/s/transcript.md")`},
		{"unlink meta.json", "EPERM", `os.unlink(M + "/s/meta.json")`},
		{"unlink append", "EPERM", `os.unlink(M + "/s/append")`},
		{"unlink a branch's transcript", "EPERM", `os.unlink(M + "/s/branches/b/transcript.md")`},
		{"rename transcript.md", "EPERM", `os.rename(M + "/s/transcript.md", M + "/s/t.md")`},
		{"link transcript.md", "EPERM", `os.link(M + "/s/transcript.md", M + "/s/hard")`},
		{"symlink in a session", "EPERM", `os.symlink("transcript.md", M + "/s/soft")`},
		{"symlink in the root", "EPERM", `os.symlink("s", M + "/soft")`},
		{"mknod in a session", "EPERM", `os.mkfifo(M + "/s/fifo")`},
		{"file in branches/", "EPERM", `open(M + "/s/branches/f", "w")`},
		{"mkdir in a turn", "EPERM", `os.mkdir(M + "/s/turns/1/x")`},
		{"rmdir turns/", "EPERM", `os.rmdir(M + "/s/turns")`},
		{"session name over 255 bytes", "ENAMETOOLONG", `os.mkdir(M + "/" + A[1])`},
		{"branch name over 255 bytes", "ENAMETOOLONG", `os.mkdir(M + "/s/branches/" + A[1])`},
		{"session name with a leading dot", "EINVAL", `os.mkdir(M + "/.s")`},
		{"branch name with a leading dot", "EINVAL", `os.mkdir(M + "/s/branches/.b")`},
		{"mkdir of an existing session", "EEXIST", `os.mkdir(M + "/s")`},
		{"mkdir of a reserved name", "EEXIST", `os.mkdir(M + "/trash")`},
		{"mkdir of an existing branch", "EEXIST", `os.mkdir(M + "/s/branches/main")`},
		{"mv a session onto another", "EEXIST", `os.rename(M + "/s2", M + "/s")`},
		{"mv a branch onto another", "EEXIST", `os.rename(M + "/s/branches/c", M + "/s/branches/b")`},
		{"removing the default branch", "EBUSY", `os.rmdir(M + "/s/branches/main")`},
		{"removing a branch with forks", "ENOTEMPTY", `os.rmdir(M + "/s/branches/b")`},
		{"moving a session into branches/", "EPERM", `os.rename(M + "/s2", M + "/s/branches/s2")`},
		{"moving a branch out of branches/", "EPERM", `os.rename(M + "/s/branches/c", M + "/c")`},
		{"moving a branch to another session", "EPERM", `os.rename(M + "/s/branches/c", M + "/s2/branches/c")`},
		{"meta.json with another id", "EINVAL", `meta('{"id":"00000000-0000-7000-8000-000000000000","title":"x"}')`},
		{"meta.json not an object", "EINVAL", `meta('[1,2]')`},
		{"meta.json not JSON", "EINVAL", `meta('{"title":')`},
		{"meta.json emptied", "EINVAL", `meta('')`},
	}
	if len(cases) < 40 {
		t.Fatalf("only %d cases", len(cases))
	}
	before := storeSnapshot(t, storeDir)
	for _, c := range cases {
		got, printed := py(t, pre+c.code, mnt, long)
		if got != "ERR "+c.errno {
			t.Errorf("%s: got %s, want ERR %s %s", c.name, got, c.errno, printed)
		}
		if after := storeSnapshot(t, storeDir); after != before {
			t.Fatalf("%s changed the store", c.name)
		}
	}
}
