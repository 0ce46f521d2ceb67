package mounttest

import (
	"os/exec"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"
	"github.com/sessfs/sessfs/fsnode"
)

// MountPoints is the mount points of this mount namespace, in the order
// of fsnode.MountTable; nil when the table cannot be read.
func MountPoints() []string {
	mounts, _ := fsnode.MountTable()
	out := make([]string, 0, len(mounts))
	for _, m := range mounts {
		out = append(out, m.Dir)
	}
	return out
}

// IsMountPoint says whether something is mounted on dir (absolute, as the
// mount table names it).
func IsMountPoint(dir string) bool {
	for _, p := range MountPoints() {
		if p == dir {
			return true
		}
	}
	return false
}

// retryEvery is how long Unmount waits between two tries.
const retryEvery = 50 * time.Millisecond

// Unmount takes down the mount that server serves at dir, retrying for up
// to within while the kernel still holds files of it open (a program that
// just exited may not have released them yet). Once unmounted, it waits
// for server to finish and returns nil. If the mount is still busy at the
// end, it detaches it (ForceUnmount) and returns the last error, without
// waiting for server: the caller chooses whether to wait for the last
// file to close.
func Unmount(server *fuse.Server, dir string, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		err := server.Unmount()
		if err == nil {
			server.Wait()
			return nil
		}
		if time.Now().After(deadline) {
			ForceUnmount(dir)
			return err
		}
		time.Sleep(retryEvery)
	}
}

// ForceUnmount detaches a mount that would not go away cleanly: a lazy
// unmount, so the name goes at once and the mount when its last file
// closes; fusermount3 -u -z when the caller may not unmount(2).
func ForceUnmount(dir string) {
	if syscall.Unmount(dir, syscall.MNT_DETACH) != nil {
		exec.Command("fusermount3", "-u", "-z", dir).Run()
	}
}
