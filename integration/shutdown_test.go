package integration

import (
	"bufio"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sessfs/sessfs/integration/mounttest"
)

// holder runs a python3 process that opens append, writes one message,
// says "ready", and writes a second one when told to (a line on stdin),
// printing OK or the error's name.
type holder struct {
	cmd *exec.Cmd
	in  interface{ Write([]byte) (int, error) }
	out *bufio.Scanner
}

func startHolder(t *testing.T, appendPath string) *holder {
	t.Helper()
	cmd := exec.Command("python3", "-c", `
import os, sys, errno
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)
os.write(fd, b'{"role":"user","content":"written while open"}\n')
print("ready", flush=True)
sys.stdin.readline()
try:
    os.write(fd, b'{"role":"user","content":"after"}\n')
    print("OK", flush=True)
except OSError as e:
    print(errno.errorcode[e.errno], flush=True)
`, appendPath)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &holder{cmd: cmd, in: in, out: bufio.NewScanner(out)}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if !h.out.Scan() || h.out.Text() != "ready" {
		t.Fatalf("holder did not start: %q", h.out.Text())
	}
	return h
}

// daemonWithOpenAppend mounts a store with one session in a daemon and
// has a holder keep its append open.
func daemonWithOpenAppend(t *testing.T) (store, mnt string, daemon *exec.Cmd, h *holder) {
	t.Helper()
	requireFUSE(t)
	needCLI(t)
	store = filepath.Join(t.TempDir(), "store")
	cli(t, store, "new", "s")
	mnt = mountDir(t)
	daemon = startDaemon(t, store, mnt)
	h = startHolder(t, filepath.Join(mnt, "s", "append"))
	return store, mnt, daemon, h
}

// waitExit waits for a daemon to exit and returns its error (nil: exit 0).
func waitExit(t *testing.T, cmd *exec.Cmd, within time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(within):
		t.Fatalf("sessfs mount still running after %v", within)
		return nil
	}
}

// SIGTERM while a file is open: the mount goes away at once, the daemon
// serves what is open for its grace period and exits 0; the message
// written before is in the store, and fsck is clean.
func TestShutdownWithOpenFiles(t *testing.T) {
	store, mnt, daemon, h := daemonWithOpenAppend(t)
	daemon.Process.Signal(syscall.SIGTERM)
	eventually(t, 3*time.Second, "the mount to go on SIGTERM", func() (bool, string) {
		return !mounttest.IsMountPoint(mnt), "still mounted"
	})
	if err := waitExit(t, daemon, 15*time.Second); err != nil {
		t.Errorf("sessfs mount exited with %v after SIGTERM, want 0", err)
	}
	h.in.Write([]byte("go\n"))
	if !h.out.Scan() || h.out.Text() == "OK" {
		t.Errorf("a write after the daemon exited: %q, want an error", h.out.Text())
	}
	if got := cli(t, store, "show", "--format", "jsonl", "s"); !strings.Contains(got, "written while open") || strings.Contains(got, `"after"`) {
		t.Errorf("store after the shutdown:\n%s", got)
	}
	if r := cliResult(t, store, "", "fsck"); r.code != 0 {
		t.Errorf("fsck: %v", r)
	}
}

// A lazy unmount (umount -l) with a file open: the name goes at once, the
// open file keeps working, and when it is closed the daemon exits 0 and
// leaves nothing behind.
func TestLazyUnmountLeavesNoDaemon(t *testing.T) {
	store, mnt, daemon, h := daemonWithOpenAppend(t)
	run(t, "umount", "-l", mnt)
	if mounttest.IsMountPoint(mnt) {
		t.Fatal("still a mount point after umount -l")
	}
	h.in.Write([]byte("go\n"))
	if !h.out.Scan() || h.out.Text() != "OK" {
		t.Errorf("a write through a file open across umount -l: %q, want OK", h.out.Text())
	}
	h.cmd.Wait() // closes the file: the last user of the detached mount
	if err := waitExit(t, daemon, 10*time.Second); err != nil {
		t.Errorf("sessfs mount exited with %v after the lazy unmount, want 0", err)
	}
	if got := cli(t, store, "show", "--format", "jsonl", "s"); !strings.Contains(got, `"after"`) {
		t.Errorf("the write after umount -l is not in the store:\n%s", got)
	}
}
