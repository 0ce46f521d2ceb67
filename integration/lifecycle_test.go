package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sessfs/sessfs/integration/mounttest"
)

// `sessfs mount --daemon` returns once the mount is up, with a line saying
// how to unmount; `sessfs umount` takes it down and the daemon exits.
func TestMountDaemonAndUmount(t *testing.T) {
	requireFUSE(t)
	needCLI(t)
	store := filepath.Join(t.TempDir(), "store")
	mnt := mountDir(t)
	cli(t, store, "new", "s")
	out := cli(t, store, "mount", "--daemon", mnt)
	if !mounttest.IsMountPoint(mnt) {
		t.Fatalf("mount --daemon returned (%q) but %s is not a mount point", out, mnt)
	}
	if !strings.Contains(out, "sessfs umount") {
		t.Errorf("mount --daemon says %q; want how to unmount", out)
	}
	if got := ls(t, mnt); !contains(got, "s") {
		t.Errorf("ls of the daemon's mount = %q", got)
	}
	run(t, sessfsBin, "umount", mnt)
	if mounttest.IsMountPoint(mnt) {
		mounttest.ForceUnmount(mnt)
		t.Fatal("still mounted after sessfs umount")
	}
	// The daemon is gone: nothing serves the store any more.
	eventually(t, 5*time.Second, "the daemon to exit", func() (bool, string) {
		err := exec.Command("pgrep", "-f", "sessfs mount --store "+store).Run()
		return err != nil, "pgrep still finds it"
	})
}

// Ctrl-C (SIGINT) and an unmount by another program each end a foreground
// mount with exit 0.
func TestMountEndsCleanly(t *testing.T) {
	store := filepath.Join(t.TempDir(), "store")
	for _, how := range []string{"SIGINT", "fusermount3 -u"} {
		mnt := mountDir(t)
		p := startMountProc(t, store, mnt)
		switch how {
		case "SIGINT":
			p.cmd.Process.Signal(syscall.SIGINT)
		default:
			cmd := []string{"fusermount3", "-u", mnt}
			if _, err := exec.LookPath("fusermount3"); err != nil {
				cmd = []string{"umount", mnt} // root without fuse3: umount(8) does the same
			}
			// Busy while the daemon still has go-fuse's poll probe open
			// on its new mount (WaitMount): a user would try again.
			eventually(t, 5*time.Second, "the unmount to be taken", func() (bool, string) {
				out, err := exec.Command(cmd[0], cmd[1:]...).CombinedOutput()
				if err != nil && !strings.Contains(string(out), "busy") {
					t.Fatalf("%q: %v: %s", cmd, err, out)
				}
				return err == nil, string(out)
			})
		}
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: sessfs mount still running after 10 s", how)
		}
		if p.err != nil {
			t.Errorf("%s: sessfs mount exited with %v, want 0\n%s", how, p.err, p.stderr.String())
		}
		if mounttest.IsMountPoint(mnt) {
			t.Errorf("%s: %s still mounted", how, mnt)
		}
	}
}

// A store written by a newer sessfs is refused with a message that says
// so, and left as it was.
func TestMountRefusesNewerFormat(t *testing.T) {
	requireFUSE(t)
	needCLI(t)
	store := filepath.Join(t.TempDir(), "store")
	cli(t, store, "new", "s")
	format := filepath.Join(store, "FORMAT")
	if err := os.WriteFile(format, []byte("sessfs store format 99\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mnt := mountDir(t)
	r := cliResult(t, store, "", "mount", mnt)
	if r.code == 0 || !strings.Contains(r.stderr, "upgrade sessfs") {
		t.Errorf("mount of a newer store: %v", r)
	}
	if mounttest.IsMountPoint(mnt) {
		mounttest.ForceUnmount(mnt)
		t.Error("a newer store was mounted")
	}
	if data, _ := os.ReadFile(format); string(data) != "sessfs store format 99\n" {
		t.Errorf("FORMAT changed to %q", data)
	}
}
