package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/fsnode"
)

// othersTry runs, as the user nobody, each change of the mount a local
// user could try, and prints each one's name and errno (or OK).
const othersTry = `
import errno, os, sys
M = sys.argv[1]
s = os.path.join(M, "s")
def w(path, data, flags=os.O_WRONLY | os.O_APPEND):
    fd = os.open(path, flags)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
tries = [
    ("append JSON", lambda: w(s + "/append", b'{"role":"user","content":"x"}\n')),
    ("append text", lambda: w(s + "/branches/main/append", b"x\n")),
    ("mkdir session", lambda: os.mkdir(M + "/new")),
    ("fork", lambda: os.mkdir(s + "/branches/x")),
    ("fork after a turn", lambda: os.mkdir(s + "/turns/1/fork/y")),
    ("rename session", lambda: os.rename(s, M + "/s2")),
    ("rename branch", lambda: os.rename(s + "/branches/keep", s + "/branches/keep2")),
    ("trash session", lambda: os.rmdir(s)),
    ("remove branch", lambda: os.rmdir(s + "/branches/keep")),
    ("archive", lambda: os.rename(s, M + "/archive/s")),
    ("unarchive", lambda: os.rename(M + "/archive/old", M + "/old")),
    ("trash archived", lambda: os.rmdir(M + "/archive/old")),
    ("restore", lambda: os.rename(M + "/trash/" + sys.argv[2], M + "/gone")),
    ("edit meta.json", lambda: w(s + "/meta.json", b"{}", os.O_WRONLY | os.O_TRUNC)),
    ("truncate meta.json", lambda: os.truncate(s + "/meta.json", 0)),
    ("touch meta.json", lambda: os.utime(s + "/meta.json")),
    ("chmod meta.json", lambda: os.chmod(s + "/meta.json", 0o666)),
    ("touch append", lambda: os.utime(s + "/append")),
    ("create a temporary", lambda: w(s + "/.meta.json.swp", b"x", os.O_WRONLY | os.O_CREAT)),
    ("write a temporary", lambda: w(s + "/meta.json~", b"x", os.O_WRONLY)),
    ("truncate a temporary", lambda: os.truncate(s + "/meta.json~", 0)),
    ("remove a temporary", lambda: os.unlink(s + "/meta.json~")),
    ("rename a temporary", lambda: os.rename(s + "/meta.json~", s + "/meta.json.bak")),
    ("save over meta.json", lambda: os.rename(s + "/meta.json.tmp", s + "/meta.json")),
    ("emacs lock", lambda: os.symlink("me@host.1", s + "/.#meta.json")),
]
for name, f in tries:
    try:
        f()
        print(name + ": OK")
    except OSError as e:
        print(name + ": " + errno.errorcode[e.errno])
`

// othersPython is a python3 the user nobody can run: the one on root's
// PATH may be in a folder only root enters (pyenv's, under /root).
func othersPython(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/python3", "/usr/local/bin/python3", "python3"} {
		if asNobody(t, `exec "$@"`, p, "-c", "pass").code == 0 {
			return p
		}
	}
	t.Fatal("no python3 that the user nobody can run")
	return ""
}

// With -o allow_other, other users read the mount and change nothing:
// every change one tries fails with EACCES, where it starts, and the
// store is as it was; the user who mounted still changes what they like.
func TestAllowOtherOthersOnlyRead(t *testing.T) {
	m := newMount(t)
	s := newSession(t, m.Store, "s", "title", conversation...)
	if _, err := s.Fork("", -1, "keep"); err != nil {
		t.Fatal(err)
	}
	newSession(t, m.Store, "old", "")
	if err := m.Store.Archive("old"); err != nil {
		t.Fatal(err)
	}
	newSession(t, m.Store, "gone", "")
	if err := m.Store.Trash("gone"); err != nil {
		t.Fatal(err)
	}
	m.Unmount(t)
	m = mountStore(t, m.StoreDir, m.Dir, fsnode.Options{AllowOther: true})
	// nobody must reach the mount point: the test's folders are root's 0700.
	for d := filepath.Dir(m.Dir); d != "/"; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && fi.Mode().Perm()&0o001 == 0 {
			os.Chmod(d, fi.Mode().Perm()|0o001)
		}
	}
	// Editors' temporaries the mounting user made.
	sh(t, `echo backup > "$1/meta.json~"; cp "$1/meta.json" "$1/meta.json.tmp"`, m.P("s"))
	trashed := ls(t, m.P("trash"))
	if len(trashed) != 1 {
		t.Fatalf("trash/ lists %q", trashed)
	}
	before := sh(t, `cd "$1" && ls -R . | sort && cat s/meta.json s/messages.jsonl s/meta.json~ archive/old/meta.json`, m.Dir)

	python := othersPython(t)
	r := asNobody(t, `exec "$@"`, python, "-c", othersTry, m.Dir, trashed[0])
	if r.code != 0 {
		t.Fatalf("python3 as nobody: %v", r)
	}
	for _, line := range lines(r.stdout) {
		if !strings.HasSuffix(line, ": EACCES") {
			t.Errorf("another user: %s, want EACCES", line)
		}
	}
	if after := sh(t, `cd "$1" && ls -R . | sort && cat s/meta.json s/messages.jsonl s/meta.json~ archive/old/meta.json`, m.Dir); after != before {
		t.Errorf("another user changed the mount:\nbefore:\n%s\nafter:\n%s", trunc(before), trunc(after))
	}

	// Reading is what allow_other is for.
	read := asNobody(t, `cd "$1" && ls -l . s s/branches s/turns/1 archive trash >/dev/null && cat s/transcript.md s/transcript.html s/export.json s/messages.jsonl s/meta.json s/append s/branches/keep/info.json s/meta.json~ >/dev/null && "$2" -c 'import json, sys; json.load(open(sys.argv[1]))' s/export.json`, m.Dir, python)
	if read.code != 0 {
		t.Errorf("another user could not read: %v", read)
	}

	// The user who mounted still changes things.
	sh(t, `cd "$1" && echo mine >> s/append && mkdir s/branches/x && rmdir s/branches/x && printf '%s' "$(cat s/meta.json.tmp)" > s/meta.json && rm s/meta.json~`, m.Dir)
	if got := messagesOf(t, m.P("s")); len(got) != len(conversation)+1 || got[len(got)-1].content() != "mine" {
		t.Errorf("the mounting user's append: messages %q", contents(got))
	}
}
