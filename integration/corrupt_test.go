package integration

import (
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
	"github.com/sessfs/sessfs/fsnode"
)

// A store with damaged sessions still mounts; every other session works,
// each damaged one serves what is intact, and fsck reports each damage.
func TestCorruptStoreMounts(t *testing.T) {
	requireFUSE(t)
	storeDir := filepath.Join(t.TempDir(), "store")
	st, err := filestore.Open(storeDir, filestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	logOf := func(s backing.Session) string {
		b, err := s.Branch("")
		if err != nil {
			t.Fatal(err)
		}
		return filepath.Join(sessionDir(s), "logs", b.ID+".jsonl")
	}
	appendRaw := func(path, data string) {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		f.WriteString(data)
	}
	good := newSession(t, st, "good", "fine", jsonMsg("user", "all is well"))
	_ = good
	torn := newSession(t, st, "torn", "", jsonMsg("user", "before the tear"))
	appendRaw(logOf(torn), `{"role":"user","content":"half`)
	garbage := newSession(t, st, "garbage", "", jsonMsg("user", "before the garbage"))
	appendRaw(logOf(garbage), "\x00\x01 garbage bytes\n{\"role\":\"user\",\"content\":\"bad utf8 \xff\"}\n")
	if err := garbage.AppendID("", [][]byte{[]byte(jsonMsg("assistant", "after the garbage"))}); err != nil {
		t.Fatal(err)
	}
	nometa := newSession(t, st, "nometa", "", jsonMsg("user", "meta is gone"))
	os.Remove(filepath.Join(sessionDir(nometa), "meta.json"))
	badmeta := newSession(t, st, "badmeta", "", jsonMsg("user", "meta is broken"))
	os.WriteFile(filepath.Join(sessionDir(badmeta), "meta.json"), []byte("{not json"), 0o600)
	orphan := newSession(t, st, "orphan", "", jsonMsg("user", "on main"))
	b, err := orphan.Fork("", backing.Head, "lost")
	if err != nil {
		t.Fatal(err)
	}
	main, _ := orphan.Branch("")
	// The fork's parent vanishes (not through sessfs, which refuses that).
	os.Remove(filepath.Join(sessionDir(orphan), "branches", main.ID+".json"))
	_ = b

	// The mount logs what it skips (the log package's output, here).
	var logged lockedBuffer
	log.SetOutput(&logged)
	t.Cleanup(func() { log.SetOutput(os.Stderr) })
	m := mountStore(t, storeDir, mountDir(t), fsnode.Options{})
	if got := ls(t, m.Dir); len(got) != 6+len(views) {
		t.Errorf("ls of the mount = %q, want 6 sessions and the views", got)
	}
	for name, want := range map[string]string{
		"good":    "all is well",
		"torn":    "before the tear",
		"garbage": "after the garbage",
		"nometa":  "meta is gone",
		"badmeta": "meta is broken",
	} {
		got := cat(t, m.P(name, "transcript.md"))
		if !strings.Contains(got, want) {
			t.Errorf("%s/transcript.md lacks %q:\n%s", name, want, got)
		}
		// The header leaves out what a lost meta.json would say; the
		// page still reads.
		if html := cat(t, m.P(name, "transcript.html")); !strings.Contains(html, want) {
			t.Errorf("%s/transcript.html lacks %q", name, want)
		}
		if name == "garbage" && (!strings.Contains(got, "before the garbage") || strings.Contains(got, "garbage bytes")) {
			t.Errorf("garbage/transcript.md should skip the bad lines and keep the rest:\n%s", got)
		}
	}
	if got := logged.String(); strings.Count(got, "skipped, not a message") != 2 {
		t.Errorf("the mount should log each of garbage's two bad lines once:\n%s", got)
	}
	if got := cat(t, m.P("torn", "messages.jsonl")); strings.Contains(got, "half") {
		t.Errorf("a torn line is shown: %q", got)
	}
	// A broken meta.json reads as its bytes, so a person can see and fix it.
	if got := cat(t, m.P("badmeta", "meta.json")); got != "{not json" {
		t.Errorf("badmeta/meta.json = %q", got)
	}
	// The branch whose parent is gone is refused; the session's main works.
	if r := runCmd(t, "", "cat", m.P("orphan", "branches", "lost", "transcript.md")); r.code == 0 {
		t.Errorf("reading a branch whose parent is gone succeeded: %q", r.stdout)
	}
	// Appends still work on the damaged sessions, after the torn line.
	sh(t, `echo "after the tear" >> "$1"`, m.P("torn", "append"))
	if got := cat(t, m.P("torn", "transcript.md")); !strings.Contains(got, "after the tear") || strings.Contains(got, "half") {
		t.Errorf("torn after an append:\n%s", got)
	}
	m.Unmount(t)

	needCLI(t)
	r := cliResult(t, storeDir, "", "fsck")
	if r.code == 0 {
		t.Fatalf("fsck found nothing in a damaged store: %v", r)
	}
	for _, want := range []string{"is not a message", "meta.json", "parent"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("fsck output lacks %q:\n%s", want, r.stdout)
		}
	}
}

// A full disk fails an append with ENOSPC, leaves the store as it was,
// and the next append that fits works.
func TestFullDisk(t *testing.T) {
	requireFUSE(t)
	tiny := tmpfs(t, "1m")
	storeDir := filepath.Join(tiny, "store")
	st, err := filestore.Open(storeDir, filestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	newSession(t, st, "s", "", jsonMsg("user", "first"))
	m := mountStore(t, storeDir, mountDir(t), fsnode.Options{})
	before := cat(t, m.P("s", "messages.jsonl"))
	wantErrno(t, "ENOSPC", "a 2 MiB message on a 1 MiB disk", `
fd = os.open(A[0], os.O_WRONLY | os.O_APPEND)
data = (json.dumps({"role": "user", "content": "x" * (2 << 20)}) + "\n").encode()
while data:  # the kernel splits it at max_write and may report a short write
    data = data[os.write(fd, data):]
`, m.P("s", "append"))
	if got := cat(t, m.P("s", "messages.jsonl")); got != before {
		t.Errorf("a failed append changed the session: %d bytes, was %d", len(got), len(before))
	}
	sh(t, `echo small >> "$1"`, m.P("s", "append"))
	if got := cat(t, m.P("s", "transcript.md")); !strings.Contains(got, "small") {
		t.Errorf("an append after the full disk is missing:\n%s", got)
	}
}

// A log its user cannot read (checked as nobody: root reads anything):
// the other sessions list and show, the damaged one is listed with the
// error, showing it fails with a clear message, and fsck reports it and
// repairs its mode.
func TestUnreadableLog(t *testing.T) {
	needCLI(t)
	if os.Geteuid() != 0 {
		cannotRun(t, "acting as another user needs root")
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	for d := filepath.Dir(dir); d != "/"; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && fi.Mode().Perm()&0o001 == 0 {
			os.Chmod(d, fi.Mode().Perm()|0o001)
		}
	}
	store := filepath.Join(dir, "store")
	cli(t, store, "new", "a")
	cli(t, store, "append", "a", "hello a")
	cli(t, store, "new", "b")
	cli(t, store, "append", "b", "hello b")
	run(t, "chown", "-R", "nobody:nogroup", store)
	st, err := filestore.Open(store, filestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := st.Session("b")
	logs, _ := filepath.Glob(filepath.Join(sessionDir(b), "logs", "*.jsonl"))
	for _, l := range logs {
		os.Chmod(l, 0)
	}
	// A copy of the binary nobody may run (the test's own is in a 0700
	// folder).
	bin := filepath.Join(dir, "sessfs")
	data, err := os.ReadFile(sessfsBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	nobody := func(args ...string) result {
		return asNobody(t, `exec "$@"`, append([]string{bin}, append(args[:1:1], append([]string{"--store", store}, args[1:]...)...)...)...)
	}
	if r := nobody("ls"); r.code != 0 || !strings.Contains(r.stdout, "permission denied") || !strings.Contains(r.stdout, "a ") {
		t.Errorf("ls with an unreadable log: %v", r)
	}
	if r := nobody("show", "a"); r.code != 0 || !strings.Contains(r.stdout, "hello a") {
		t.Errorf("show of the healthy session: %v", r)
	}
	if r := nobody("show", "b"); r.code != 1 || !strings.Contains(r.stderr, "permission denied") {
		t.Errorf("show of the unreadable session: %v", r)
	}
	if r := nobody("fsck"); r.code != 1 || !strings.Contains(r.stdout, "mode 0000") {
		t.Errorf("fsck: %v", r)
	}
	if r := nobody("fsck", "--repair"); r.code != 0 {
		t.Errorf("fsck --repair: %v", r)
	}
	if r := nobody("show", "b"); r.code != 0 || !strings.Contains(r.stdout, "hello b") {
		t.Errorf("show after the repair: %v", r)
	}
}
