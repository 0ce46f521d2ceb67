package mounttest

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// Mount is one mount of the mount table.
type Mount struct {
	Dir    string // the mount point
	FSType string // "fuse.sessfs", "tmpfs", "ext4", …
	Source string // what is mounted: a device, or a sessfs mount's store
}

// Table is this mount namespace's mounts, in the order of
// /proc/self/mountinfo: a later mount on the same folder hides an earlier
// one.
func Table() ([]Mount, error) {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	return parse(string(data)), nil
}

// parse reads the lines of a mountinfo file.
func parse(data string) []Mount {
	var mounts []Mount
	for _, line := range strings.Split(data, "\n") {
		// id parent major:minor root MOUNTPOINT options [optional…] - FSTYPE SOURCE superoptions
		f := strings.Fields(line)
		sep := -1
		for i, x := range f {
			if x == "-" && i >= 6 {
				sep = i
				break
			}
		}
		if sep < 0 || sep+2 >= len(f) {
			continue
		}
		mounts = append(mounts, Mount{Dir: Unescape(f[4]), FSType: f[sep+1], Source: Unescape(f[sep+2])})
	}
	return mounts
}

// MountPoints is the mount points of this mount namespace, in the order
// of Table; nil when the table cannot be read.
func MountPoints() []string {
	mounts, _ := Table()
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

// Unescape undoes the octal escapes of the mount table (\040 for a space,
// \011 for a tab, \012 for a newline, \134 for a backslash).
func Unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
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
