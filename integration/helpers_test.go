package integration

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sessfs/sessfs/integration/realdata"

	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
	"github.com/sessfs/sessfs/fsnode"
	"github.com/sessfs/sessfs/integration/mounttest"
)

// cmdTimeout bounds every program a test runs: a hung FUSE request must fail
// the test, not hang the suite until go test's own timeout.
const cmdTimeout = 60 * time.Second

// requireFUSE skips the test when this machine cannot mount, or fails it
// when SESSFS_REQUIRE_FUSE=1 says it must.
func requireFUSE(t *testing.T) {
	t.Helper()
	reason := ""
	if os.Geteuid() != 0 {
		reason = "not root"
	} else if f, err := os.OpenFile("/dev/fuse", os.O_RDWR, 0); err != nil {
		reason = fmt.Sprintf("cannot open /dev/fuse: %v", err)
	} else {
		f.Close()
	}
	if reason != "" {
		cannotRun(t, "FUSE mount tests need root and /dev/fuse: "+reason)
	}
}

// cannotRun ends a test this machine lacks something for: a skip, but a
// failure under SESSFS_REQUIRE_FUSE=1 (set by CI, which installs all of
// it), so that CI can never silently not run a test.
func cannotRun(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("SESSFS_REQUIRE_FUSE") == "1" {
		t.Fatalf("%s, and SESSFS_REQUIRE_FUSE=1", why)
	}
	t.Skipf("%s (set SESSFS_REQUIRE_FUSE=1 to fail instead)", why)
}

// needCLI fails the test when the sessfs binary could not be built.
func needCLI(t *testing.T) {
	t.Helper()
	if sessfsBin == "" {
		t.Fatalf("the sessfs binary is needed and did not build: %v", buildErr)
	}
}

// ---- mounts ----

// registry of mount points this run created, for the final check.
var (
	regMu      sync.Mutex
	registered = map[string]bool{}
)

func register(mnt string) {
	regMu.Lock()
	registered[mnt] = true
	regMu.Unlock()
}

// leftMounts lists this run's mount points that are still mounted.
func leftMounts() []string {
	regMu.Lock()
	defer regMu.Unlock()
	var left []string
	for _, p := range mounttest.MountPoints() {
		if registered[p] || strings.HasPrefix(p, mountRoot+"/") {
			left = append(left, p)
		}
	}
	return left
}

// mountDir makes an empty folder to mount on. It is removed after the
// test, with os.Remove only: if a mount were left on it, a recursive
// removal would walk into the mount and trash sessions.
func mountDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp(mountRoot, "mnt-")
	if err != nil {
		t.Fatal(err)
	}
	register(dir)
	t.Cleanup(func() { os.Remove(dir) })
	return dir
}

// tmpfs mounts a tmpfs of size ("1m") on a fresh folder, for a test that
// fills a disk or needs a mount that is not sessfs's, and returns the
// folder. It is unmounted when the test ends; the folder is one of this
// run's mount points (mountDir), so TestMain finds it if it is left.
func tmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := mountDir(t)
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		cannotRun(t, fmt.Sprintf("cannot mount a %s tmpfs: %v", size, err))
	}
	t.Cleanup(func() {
		if syscall.Unmount(dir, 0) != nil {
			mounttest.ForceUnmount(dir)
		}
	})
	return dir
}

// mount is one in-process mount of a store: the test process serves the
// kernel's requests while the programs it runs make them.
type mount struct {
	Dir      string           // the mount point
	StoreDir string           // the store's root
	Store    *filestore.Store // the store the mount serves
	server   *fuse.Server
	once     sync.Once
	err      error
}

// newMount mounts a fresh store.
func newMount(t *testing.T) *mount {
	return mountStore(t, filepath.Join(t.TempDir(), "store"), mountDir(t), fsnode.Options{})
}

// mountStore opens the store at storeDir and mounts it at mnt. It is
// unmounted when the test ends, if the test did not do it.
func mountStore(t *testing.T, storeDir, mnt string, opts fsnode.Options) *mount {
	t.Helper()
	requireFUSE(t)
	st, err := filestore.Open(storeDir, filestore.Options{})
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	register(mnt)
	server, err := fsnode.MountServer(mnt, fsnode.New(st, opts), fsnode.MountOptions(st, opts))
	if err != nil {
		t.Fatalf("mount %s: %v", mnt, err)
	}
	m := &mount{Dir: mnt, StoreDir: storeDir, Store: st, server: server}
	t.Cleanup(func() {
		if err := m.unmount(); err != nil {
			t.Errorf("unmount at the end of the test: %v", err)
		}
	})
	return m
}

// unmount unmounts, retrying while the kernel still holds files of the
// mount open (a program that just exited may not have released them yet).
func (m *mount) unmount() error {
	m.once.Do(func() {
		if m.err = mounttest.Unmount(m.server, m.Dir, 5*time.Second); m.err != nil {
			// Detached: the server ends when the last file closes.
			m.server.Wait()
		}
	})
	return m.err
}

// Unmount unmounts now, failing the test if it cannot.
func (m *mount) Unmount(t *testing.T) {
	t.Helper()
	if err := m.unmount(); err != nil {
		t.Fatalf("unmount %s: %v", m.Dir, err)
	}
	if mounttest.IsMountPoint(m.Dir) {
		t.Fatalf("%s is still a mount point after unmount", m.Dir)
	}
}

// P is a path inside the mount.
func (m *mount) P(elem ...string) string {
	return filepath.Join(append([]string{m.Dir}, elem...)...)
}

// mountProc is `sessfs mount` running as a child process.
type mountProc struct {
	Dir    string
	cmd    *exec.Cmd
	stderr *lockedBuffer
	done   chan struct{}
	err    error // from Wait, once done is closed
}

// startMountProc runs `sessfs mount --store storeDir mnt args...` and
// returns once mnt is a mount point. At the end of the test it is stopped
// with SIGTERM and must exit 0.
func startMountProc(t *testing.T, storeDir, mnt string, args ...string) *mountProc {
	t.Helper()
	requireFUSE(t)
	needCLI(t)
	register(mnt)
	p := &mountProc{Dir: mnt, stderr: &lockedBuffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(sessfsBin, append(append([]string{"mount", "--store", storeDir}, args...), mnt)...)
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { p.stop(t) })
	deadline := time.Now().Add(10 * time.Second)
	for !mounttest.IsMountPoint(mnt) {
		select {
		case <-p.done:
			t.Fatalf("sessfs mount exited before mounting: %v\n%s", p.err, p.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("sessfs mount: %s not mounted after 10 s\n%s", mnt, p.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	return p
}

// stop sends SIGTERM and checks the daemon unmounts and exits 0.
func (p *mountProc) stop(t *testing.T) {
	select {
	case <-p.done:
	default:
		p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			t.Errorf("sessfs mount did not exit 10 s after SIGTERM\n%s", p.stderr.String())
			p.cmd.Process.Kill()
			select {
			case <-p.done:
			case <-time.After(10 * time.Second):
				// Stuck in the kernel (a request to its own mount, say):
				// report it and go on rather than hang the whole run.
				t.Errorf("sessfs mount (pid %d) still alive 10 s after SIGKILL: %s", p.cmd.Process.Pid, procState(p.cmd.Process.Pid))
				mounttest.ForceUnmount(p.Dir)
				return
			}
		}
	}
	if p.err != nil {
		t.Errorf("sessfs mount exited with %v, want exit 0 after SIGTERM\nstderr:\n%s", p.err, p.stderr.String())
	}
	if mounttest.IsMountPoint(p.Dir) {
		t.Errorf("%s still mounted after sessfs mount exited", p.Dir)
		mounttest.ForceUnmount(p.Dir)
	}
}

// procState is a process's state and kernel wait channel, for a report.
func procState(pid int) string {
	stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	wchan, _ := os.ReadFile(fmt.Sprintf("/proc/%d/wchan", pid))
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+3 < len(stat) {
		stat = stat[i+2 : i+3]
	}
	return fmt.Sprintf("state %s, waiting in %s", stat, wchan)
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// ---- programs ----

// result is what a program did.
type result struct {
	args           []string
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return fmt.Sprintf("%q: exit %d\nstdout: %q\nstderr: %q", r.args, r.code, trunc(r.stdout), trunc(r.stderr))
}

func trunc(s string) string {
	if len(s) > 2000 {
		return s[:1000] + " … " + s[len(s)-1000:]
	}
	return s
}

// runCmd runs a program with stdin, however it exits.
func runCmd(t *testing.T, stdin string, name string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cmdTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{args: append([]string{name}, args...), stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("%q did not finish in %v (a hung FUSE request?)", r.args, cmdTimeout)
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("run %q: %v", r.args, err)
	}
	return r
}

// run runs a program that must succeed and returns its standard output.
func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	r := runCmd(t, "", name, args...)
	if r.code != 0 {
		t.Fatalf("want success: %v", r)
	}
	return r.stdout
}

// sh runs a shell script that must succeed; args are $1, $2, …
func sh(t *testing.T, script string, args ...string) string {
	t.Helper()
	return run(t, "sh", append([]string{"-c", script, "sh"}, args...)...)
}

// shResult runs a shell script however it exits.
func shResult(t *testing.T, script string, args ...string) result {
	t.Helper()
	return runCmd(t, "", "sh", append([]string{"-c", script, "sh"}, args...)...)
}

// cli runs `sessfs CMD --store STORE ARGS...`, which must succeed.
func cli(t *testing.T, storeDir, command string, args ...string) string {
	t.Helper()
	r := cliResult(t, storeDir, "", command, args...)
	if r.code != 0 {
		t.Fatalf("want success: %v", r)
	}
	return r.stdout
}

func cliResult(t *testing.T, storeDir, stdin, command string, args ...string) result {
	t.Helper()
	needCLI(t)
	return runCmd(t, stdin, sessfsBin, append([]string{command, "--store", storeDir}, args...)...)
}

// pyPrelude runs the code in argv[1] with os, sys, json and errno imported
// and A = the remaining arguments, and reports on its last line either OK
// or ERR and the errno's name: the exact errno a system call failed with.
const pyPrelude = `
import os, sys, json, errno, stat
A = sys.argv[2:]
try:
    exec(sys.argv[1])
except OSError as e:
    sys.stdout.flush()
    print("ERR " + errno.errorcode.get(e.errno, str(e.errno)))
    sys.exit(0)
print("OK")
`

// py runs Python code and returns "OK" or "ERR ENAME", and everything the
// code printed before it.
func py(t *testing.T, code string, args ...string) (status, printed string) {
	t.Helper()
	r := runCmd(t, "", "python3", append([]string{"-c", pyPrelude, code}, args...)...)
	if r.code != 0 {
		t.Fatalf("python3 failed: %v\ncode:\n%s", r, code)
	}
	out := strings.TrimRight(r.stdout, "\n")
	i := strings.LastIndexByte(out, '\n')
	return out[i+1:], out[:max(i, 0)]
}

// wantErrno runs Python code that must fail with errno want ("EPERM").
func wantErrno(t *testing.T, want, what, code string, args ...string) {
	t.Helper()
	if got, _ := py(t, code, args...); got != "ERR "+want {
		t.Errorf("%s: got %s, want ERR %s", what, got, want)
	}
}

// wantOK runs Python code that must succeed.
func wantOK(t *testing.T, what, code string, args ...string) string {
	t.Helper()
	got, printed := py(t, code, args...)
	if got != "OK" {
		t.Fatalf("%s: got %s, want OK (printed %q)", what, got, printed)
	}
	return printed
}

// ---- reading the view ----

// cat reads a file through the mount with cat(1).
func cat(t *testing.T, path string) string {
	t.Helper()
	return run(t, "cat", path)
}

// statSize is stat -c %s of a path.
func statSize(t *testing.T, path string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(strings.TrimSpace(run(t, "stat", "-c", "%s", path)), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// ls lists a folder with ls(1), one name a line.
func ls(t *testing.T, dir string) []string {
	t.Helper()
	return lines(run(t, "ls", "-1", dir))
}

// views are the folders of a mount's root beside the sessions.
var views = []string{"archive", "by-project", "by-tag", "recent", "search", "trash"}

// rootOf is what ls MOUNT lists with sessions names: them and the views,
// sorted as ls sorts them in the C locale.
func rootOf(names ...string) []string {
	out := append(slices.Clone(views), names...)
	slices.Sort(out)
	return out
}

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// msg is a message as read back from messages.jsonl.
type msg map[string]any

func (m msg) role() string    { s, _ := m["role"].(string); return s }
func (m msg) content() string { s, _ := m["content"].(string); return s }

// parseJSONL parses messages.jsonl: every line must be one JSON object.
func parseJSONL(t *testing.T, data string) []msg {
	t.Helper()
	var out []msg
	sc := bufio.NewScanner(strings.NewReader(data))
	sc.Buffer(nil, 256<<20)
	for n := 1; sc.Scan(); n++ {
		var m msg
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("messages.jsonl line %d is not a JSON object: %v: %q", n, err, trunc(sc.Text()))
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if data != "" && !strings.HasSuffix(data, "\n") {
		t.Fatalf("messages.jsonl does not end with a newline: …%q", data[max(0, len(data)-80):])
	}
	return out
}

// messagesOf reads a branch folder's (or session folder's) messages.jsonl
// through the mount with cat.
func messagesOf(t *testing.T, dir string) []msg {
	t.Helper()
	return parseJSONL(t, cat(t, filepath.Join(dir, "messages.jsonl")))
}

// storeMessages reads a branch from the store itself, through a fresh
// handle, to check what the mount wrote without trusting the mount.
func storeMessages(t *testing.T, storeDir, session, branch string) []msg {
	t.Helper()
	st, err := filestore.Open(storeDir, filestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := st.Session(session)
	if err != nil {
		t.Fatalf("store: session %s: %v", session, err)
	}
	b, err := s.Branch(branch)
	if err != nil {
		t.Fatalf("store: branch %q of %s: %v", branch, session, err)
	}
	v, err := s.ViewID(b.ID)
	if err != nil {
		t.Fatalf("store: branch %q of %s: %v", branch, session, err)
	}
	ms, err := v.Read(0, v.Len())
	if err != nil {
		t.Fatal(err)
	}
	var out []msg
	for _, m := range ms {
		var x msg
		if err := json.Unmarshal(m.Raw, &x); err != nil {
			t.Fatalf("store: message %d: %v", m.Index, err)
		}
		out = append(out, x)
	}
	return out
}

// storeMeta is session name's meta.json as the store holds it, read from
// the store, not the mount: what an edit through the mount really changed.
func storeMeta(t *testing.T, m *mount, name string) backing.Meta {
	t.Helper()
	s, err := m.Store.Session(name)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := s.Meta()
	if err != nil {
		t.Fatal(err)
	}
	return meta
}

// contents lists the contents of messages, for comparisons and messages.
func contents(ms []msg) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.content()
	}
	return out
}

// ---- making sessions ----

// sharedData is the real session files kept beside the repository (see
// package realdata) that match patterns of agent and file name
// ("codex/*.jsonl"). The test is skipped when none does.
func sharedData(t *testing.T, patterns ...string) []string {
	t.Helper()
	all, err := realdata.Files()
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, p := range patterns {
		for _, f := range all {
			if ok, _ := path.Match(p, realdata.Agent(f)+"/"+filepath.Base(f)); ok {
				files = append(files, f)
			}
		}
	}
	if len(files) == 0 {
		t.Skipf("no real sessions beside the repository match %s", strings.Join(patterns, ", "))
	}
	return files
}

// jsonMsg is one message line, without the newline.
func jsonMsg(role, content string) string {
	b, _ := json.Marshal(map[string]string{"role": role, "content": content})
	return string(b)
}

// conversation is two turns: user, assistant, user, assistant.
var conversation = []string{
	jsonMsg("user", "What is the capital of France?"),
	jsonMsg("assistant", "Paris is the capital of France; the word to grep is xylophone."),
	jsonMsg("user", "And of Italy?"),
	jsonMsg("assistant", "Rome. Shown in full so that the transcript has well over a hundred bytes in its last message, for tail -c."),
}

// newSession creates a session through the store (not the mount) and
// appends msgs to its default branch.
func newSession(t *testing.T, st *filestore.Store, name, title string, msgs ...string) backing.Session {
	t.Helper()
	s, _, err := st.Create(name, backing.Meta{Title: title})
	if err != nil {
		t.Fatalf("create session %s: %v", name, err)
	}
	if len(msgs) > 0 {
		raw := make([][]byte, len(msgs))
		for i, m := range msgs {
			raw[i] = []byte(m)
		}
		if err := s.AppendID("", raw); err != nil {
			t.Fatalf("append to %s: %v", name, err)
		}
	}
	return s
}

// ---- waiting ----

// eventually polls cond until it holds or the time is up; detail says
// what was seen last, for the failure message. This is polling with a
// deadline, never a fixed sleep standing in for synchronisation.
func eventually(t *testing.T, within time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		ok, detail := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not true within %v; last seen: %s", what, within, detail)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// transcriptBody is a transcript.md without its header (a title line, a
// blank line, a list, a blank line): the messages alone.
func transcriptBody(t *testing.T, md string) string {
	t.Helper()
	i := strings.Index(md, "\n\n")
	j := strings.Index(md[i+2:], "\n\n")
	if !strings.HasPrefix(md, "# ") || i < 0 || j < 0 || !strings.HasPrefix(md[i+2:], "- ") {
		t.Fatalf("transcript.md does not open with a header: %q", trunc(md))
	}
	return md[i+2+j+2:]
}

// sessionDir is the folder of a session of the file engine, for tests that
// damage or inspect its files as a crash or a person would.
func sessionDir(s backing.Session) string { return s.(*filestore.Session).Dir() }
