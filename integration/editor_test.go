package integration

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sessionFiles are the names a session folder lists when it holds no
// editor's temporary.
var sessionFiles = []string{"append", "branches", "branches.txt", "checkpoints", "compaction.json", "events.jsonl", "export.json", "memory.json", "messages.jsonl", "meta.json", "tasks.json", "transcript.html", "transcript.md", "transcript.redacted.md", "turns", "usage.json"}

// needProgram skips a test whose program is not installed, or fails it
// under SESSFS_REQUIRE_FUSE=1 (CI installs vim, nano, emacs-nox and rsync).
func needProgram(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		cannotRun(t, name+" is not installed")
	}
}

// A file of the user's own in a session folder is refused with EPERM and
// nothing is made: it would have lived in the mount's memory only and
// vanished at unmount. Editors' temporaries are accepted, but cannot be
// renamed to a name of their own.
func TestEditorOwnFilesRefused(t *testing.T) {
	m, dir := appendFixture(t)
	before := storeSnapshot(t, m.StoreDir)
	if r := shResult(t, `echo x > "$1/notes.md"`, dir); r.code == 0 || !strings.Contains(r.stderr, "Operation not permitted") {
		t.Errorf("echo x > notes.md: %v, want Operation not permitted", r)
	}
	src := filepath.Join(t.TempDir(), "somefile")
	os.WriteFile(src, []byte("mine\n"), 0o600)
	if r := runCmd(t, "", "cp", src, dir+"/"); r.code == 0 || !strings.Contains(r.stderr, "Operation not permitted") {
		t.Errorf("cp somefile MOUNT/s/: %v, want Operation not permitted", r)
	}
	wantErrno(t, "EPERM", "open(notes.md, O_CREAT)", `os.open(A[0], os.O_WRONLY | os.O_CREAT, 0o644)`, dir+"/notes.md")
	wantErrno(t, "EPERM", "touch a new file", `open(A[0], "a")`, dir+"/new.txt")
	wantErrno(t, "EPERM", "mkdir in a session", `os.mkdir(A[0])`, dir+"/notes")
	wantErrno(t, "EPERM", "symlink other than an editor's lock", `os.symlink("x", A[0])`, dir+"/link")
	wantErrno(t, "EPERM", "rename an editor's temporary to a name of its own", `
open(A[0] + "/meta.json.tmp", "w").write("kept?")
os.rename(A[0] + "/meta.json.tmp", A[0] + "/notes.md")
`, dir)
	run(t, "rm", dir+"/meta.json.tmp")
	if got := ls(t, dir); !slices.Equal(got, sessionFiles) {
		t.Errorf("ls after the refusals = %q, want %q", got, sessionFiles)
	}
	if after := storeSnapshot(t, m.StoreDir); after != before {
		t.Errorf("a refused create changed the store")
	}
}

// afterEditor checks an editor's save: it exited 0, the store holds the
// field it added, and no temporary is left but the backup, if one is
// wanted, holding the document as it was.
func afterEditor(t *testing.T, m *mount, what string, r result, key, oldDoc string, backup string) {
	t.Helper()
	if r.code != 0 {
		t.Errorf("%s: %v", what, r)
	}
	if got := string(storeMeta(t, m, "s").Extra[key]); got != "true" {
		t.Errorf("%s: the store's meta.json has %s = %q, want true", what, key, got)
	}
	want := sessionFiles
	if backup != "" {
		want = append([]string{backup}, sessionFiles...)
		slices.Sort(want)
	}
	if got := lines(run(t, "ls", "-A", m.P("s"))); !slices.Equal(got, want) {
		t.Errorf("%s: ls -A = %q, want %q", what, got, want)
	}
	if backup != "" {
		if got := cat(t, m.P("s", backup)); got != oldDoc {
			t.Errorf("%s: the backup %s holds %q, want the document as it was", what, backup, trunc(got))
		}
		run(t, "rm", m.P("s", backup))
	}
}

// vim saves meta.json with its swap file (.meta.json.swp), its write test
// (4913) and a backup (meta.json~), whatever 'backupcopy' says: meta.json
// cannot be renamed away, and vim copies instead. ('backupskip' is
// cleared: vim skips backups of files under /tmp, where the test mounts.)
func TestEditorVim(t *testing.T) {
	needProgram(t, "vim")
	m, dir := appendFixture(t)
	path := dir + "/meta.json"
	for i, c := range []struct{ opts, backup string }{
		{"set backupcopy=yes backup", "meta.json~"},
		{"set backupcopy=auto backup", "meta.json~"},
		{"set backupcopy=no backup", "meta.json~"},
		{"set backupcopy=auto nobackup writebackup", ""},
		{"set nowritebackup nobackup", ""},
	} {
		key := "vim" + string(rune('a'+i))
		old := cat(t, path)
		r := runCmd(t, "", "vim", "-Es", "-c", "set backupskip= "+strings.TrimPrefix(c.opts, "set "),
			"-c", `1s/{/{"`+key+`": true,/`, "-c", "wq", path)
		afterEditor(t, m, "vim "+c.opts, r, key, old, c.backup)
	}
}

// nanoDriver runs nano in a terminal (a pty) and types: go to the end of
// line 1, add a field, write out (^O, Enter), exit (^X). It waits for what
// nano shows before each step, never a fixed time.
const nanoDriver = `
import os, pty, sys, select, time
argv, key = sys.argv[1:-1], sys.argv[-1]
pid, fd = pty.fork()
if pid == 0:
    os.environ["TERM"] = "xterm"
    os.execvp(argv[0], argv)
out = b""
def wait_for(marker):
    global out
    deadline = time.time() + 30
    while marker not in out:
        r, _, _ = select.select([fd], [], [], max(0, deadline - time.time()))
        if not r:
            sys.exit("nano: no %r on the screen; last: %r" % (marker, out[-300:]))
        try:
            out += os.read(fd, 65536)
        except OSError:
            sys.exit("nano exited before %r: %r" % (marker, out[-300:]))
wait_for(b"meta.json")
os.write(fd, b"\x05\r  \"" + key.encode() + b"\": true,\x0f")
wait_for(b"File Name to Write")
os.write(fd, b"\r")
wait_for(b"Wrote")
os.write(fd, b"\x18")
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
`

// nano saves meta.json with its lock file (.meta.json.swp) and, with -B,
// a backup (meta.json~).
func TestEditorNano(t *testing.T) {
	needProgram(t, "nano")
	m, dir := appendFixture(t)
	path := dir + "/meta.json"
	for _, c := range []struct {
		key    string
		flags  []string
		backup string
	}{
		{"nanoa", []string{"--ignorercfiles", "--locking"}, ""},
		{"nanob", []string{"--ignorercfiles", "--locking", "--backup"}, "meta.json~"},
	} {
		old := cat(t, path)
		args := append(append(append([]string{"-c", nanoDriver, "nano"}, c.flags...), path), c.key)
		r := runCmd(t, "", "python3", args...)
		afterEditor(t, m, "nano "+strings.Join(c.flags, " "), r, c.key, old, c.backup)
	}
}

// emacs saves meta.json with its lock (the symbolic link .#meta.json), an
// auto-save file (#meta.json#) and a backup: beside it (meta.json~) when
// it backs up by copying; by default it renames the file to back it up,
// which meta.json refuses (EPERM), and emacs keeps the backup in
// ~/.emacs.d instead. Either way the save works.
func TestEditorEmacs(t *testing.T) {
	needProgram(t, "emacs")
	m, dir := appendFixture(t)
	path := dir + "/meta.json"
	home := t.TempDir()
	os.Mkdir(filepath.Join(home, ".emacs.d"), 0o700)
	for _, c := range []struct {
		key, setting, backup string
	}{
		{"emacsa", "(setq backup-by-copying t)", "meta.json~"},
		{"emacsb", "(setq backup-by-copying nil)", ""},
	} {
		old := cat(t, path)
		edit := `(progn (auto-save-mode 1) (goto-char (point-min)) (forward-char 1)
  (insert "\n  \"` + c.key + `\": true,")
  (princ (format "lock %s\n" (file-symlink-p ".#meta.json")))
  (do-auto-save t)
  (princ (format "autosave %s\n" (file-exists-p "#meta.json#")))
  (save-buffer))`
		cmd := exec.Command("emacs", "-Q", "--batch",
			// Emacs backs up nothing under /tmp, where the test mounts.
			"--eval", "(setq backup-enable-predicate (lambda (name) t))",
			"--eval", c.setting, path, "--eval", edit)
		cmd.Env = append(os.Environ(), "HOME="+home)
		out, err := cmd.CombinedOutput()
		r := result{args: cmd.Args, stdout: string(out)}
		if err != nil {
			r.code = 1
		}
		if !strings.Contains(string(out), "lock ") || strings.Contains(string(out), "lock nil") {
			t.Errorf("emacs %s: no lock link while editing: %s", c.setting, out)
		}
		if !strings.Contains(string(out), "autosave t") {
			t.Errorf("emacs %s: no auto-save file: %s", c.setting, out)
		}
		afterEditor(t, m, "emacs "+c.setting, r, c.key, old, c.backup)
		if c.backup == "" {
			if data, err := os.ReadFile(filepath.Join(home, ".emacs.d", "%backup%~")); err != nil || string(data) != old {
				t.Errorf("emacs %s: the backup in ~/.emacs.d: %v, %q", c.setting, err, trunc(string(data)))
			}
		}
	}
}

// A save by writing a temporary file and renaming it onto meta.json, as
// VS Code (meta.json.vsctmp) and atomic-write libraries (.meta.json and
// random digits) do, replaces the document; the temporary is gone.
func TestEditorTempRename(t *testing.T) {
	m, dir := appendFixture(t)
	for _, tmp := range []string{"meta.json.vsctmp", ".meta.json.4815162342"} {
		doc := metaOf(t, dir+"/meta.json")
		key := "saved-via-" + strings.Trim(filepath.Ext(tmp), ".")
		doc[key] = true
		data, _ := json.MarshalIndent(doc, "", "  ")
		wantOK(t, "write "+tmp+" and rename it onto meta.json", `
with open(A[1], "w") as f:
    f.write(A[2])
    f.flush()
    os.fsync(f.fileno())
os.rename(A[1], A[0])
`, dir+"/meta.json", dir+"/"+tmp, string(data))
		afterEditor(t, m, "rename of "+tmp, result{}, key, "", "")
	}
}
