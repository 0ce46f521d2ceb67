package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sessfs/sessfs/fsnode"
	"github.com/sessfs/sessfs/integration/mounttest"
)

// mountCount is how many mounts are stacked on dir.
func mountCount(dir string) int {
	n := 0
	for _, p := range mounttest.MountPoints() {
		if p == dir {
			n++
		}
	}
	return n
}

// oneLine checks that a failed sessfs command said want in one line.
func oneLine(t *testing.T, r result, want string) {
	t.Helper()
	if r.code != 1 || !strings.Contains(r.stderr, want) || strings.Count(r.stderr, "\n") != 1 || r.stdout != "" {
		t.Errorf("want exit 1 and one line holding %q: %v", want, r)
	}
}

// sessfs mount over a folder where something is mounted already, sessfs
// or anything else, refuses in one line and leaves that mount alone.
// Before, it stacked a second mount that hid the first. umount refuses a
// mount that is not sessfs's.
func TestMountRefusesMountedPoint(t *testing.T) {
	requireFUSE(t)
	needCLI(t)
	storeA := filepath.Join(t.TempDir(), "a")
	storeB := filepath.Join(t.TempDir(), "b")
	cli(t, storeA, "new", "first")
	mnt := mountDir(t)
	startMountProc(t, storeA, mnt)
	for _, args := range [][]string{{mnt}, {"--daemon", mnt}} {
		r := cliResult(t, storeB, "", "mount", args...)
		oneLine(t, r, mnt+" is already a sessfs mount of "+storeA)
		if n := mountCount(mnt); n != 1 {
			t.Fatalf("mount %v: %d mounts on %s, want 1", args, n, mnt)
		}
	}
	if got := ls(t, mnt); !contains(got, "first") {
		t.Errorf("the first mount is hidden: ls = %q", got)
	}

	tmp := tmpfs(t, "1m")
	oneLine(t, cliResult(t, storeB, "", "mount", tmp), tmp+" is already a mount of type tmpfs")
	oneLine(t, runCmd(t, "", sessfsBin, "umount", tmp), tmp+" is not a sessfs mount: it is a mount of type tmpfs")
	if n := mountCount(tmp); n != 1 {
		t.Errorf("%d mounts on %s after the refusals, want the tmpfs alone", n, tmp)
	}
}

// A dead sessfs mount (its daemon killed) is still cleared: sessfs mount
// mounts over it, and sessfs umount unmounts it.
func TestMountClearsDeadMount(t *testing.T) {
	requireFUSE(t)
	needCLI(t)
	store := filepath.Join(t.TempDir(), "store")
	cli(t, store, "new", "s")
	mnt := mountDir(t)
	for _, then := range []string{"umount", "mount"} {
		d := startDaemon(t, store, mnt)
		d.Process.Kill()
		d.Wait()
		if liveMount(mnt) || !mounttest.IsMountPoint(mnt) {
			t.Fatalf("%s is not a dead mount after the daemon was killed", mnt)
		}
		if then == "umount" {
			run(t, sessfsBin, "umount", mnt)
			if mounttest.IsMountPoint(mnt) {
				t.Fatalf("the dead mount is still there after sessfs umount")
			}
			continue
		}
		p := startMountProc(t, store, mnt)
		eventually(t, 10*time.Second, "the new mount over the dead one", func() (bool, string) {
			return liveMount(mnt) && mountCount(mnt) == 1, p.stderr.String()
		})
		if got := ls(t, mnt); !contains(got, "s") {
			t.Errorf("ls of the new mount = %q", got)
		}
		if !strings.Contains(p.stderr.String(), "dead mount") {
			t.Errorf("sessfs mount did not say it cleared the dead mount: %q", p.stderr.String())
		}
	}
}

// A mount told to stop (SIGTERM) the moment its mount point is live
// unmounts and exits 0: the signal is caught from before the mount, so a
// service manager or a user's Ctrl-C at start never leaves a dead mount.
func TestMountStoppedAsItStarts(t *testing.T) {
	requireFUSE(t)
	needCLI(t)
	store := filepath.Join(t.TempDir(), "store")
	cli(t, store, "new", "s")
	mnt := mountDir(t)
	register(mnt)
	for try := range 20 {
		cmd := exec.Command(sessfsBin, "mount", "--store", store, mnt)
		var stderr lockedBuffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		// Poll without sleeping, to signal as soon as the kernel lists
		// the mount.
		deadline := time.Now().Add(10 * time.Second)
		for !mounttest.IsMountPoint(mnt) && time.Now().Before(deadline) {
			runtime.Gosched()
		}
		cmd.Process.Signal(syscall.SIGTERM)
		var err error
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			err = <-done
			t.Errorf("try %d: sessfs mount still running 10 s after SIGTERM", try)
		}
		if err != nil {
			t.Errorf("try %d: sessfs mount exited with %v after SIGTERM, want 0\n%s", try, err, stderr.String())
		}
		if mounttest.IsMountPoint(mnt) {
			mounttest.ForceUnmount(mnt)
			t.Fatalf("try %d: %s still mounted after sessfs mount exited", try, mnt)
		}
	}
}

// A program started while the process mounts does not inherit the
// mount's /dev/fuse descriptor (fsnode.MountServer): one that kept it
// would keep the mount's connection alive after its server ends, and
// every access to the mount would hang instead of failing.
func TestMountFDNotInherited(t *testing.T) {
	requireFUSE(t)
	if os.Getuid() != 0 {
		t.Skip("only root's direct mount opens /dev/fuse in this process")
	}
	store := filepath.Join(t.TempDir(), "store")
	stop := make(chan struct{})
	leaked := make(chan string, 1)
	spawned := 0
	go func() {
		defer close(leaked)
		for {
			select {
			case <-stop:
				return
			default:
			}
			out, _ := exec.Command("ls", "-l", "/proc/self/fd").Output()
			spawned++
			if strings.Contains(string(out), "/dev/fuse") {
				leaked <- string(out)
				return
			}
		}
	}()
	for range 40 {
		m := mountStore(t, store, mountDir(t), fsnode.Options{})
		if err := m.unmount(); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	if out, ok := <-leaked; ok {
		t.Fatalf("a program started during a mount holds /dev/fuse:\n%s", out)
	}
	t.Logf("%d programs started during 40 mounts", spawned)
}
