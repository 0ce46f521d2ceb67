package fsnode

import (
	"os"
	"strconv"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// MountServer mounts root at dir with options o (MountOptions), as
// fs.Mount does, but never lets a program this process starts inherit
// the mount's /dev/fuse descriptor. go-fuse (v2.12.1) marks it
// close-on-exec when fusermount3 passed it, but not when root mounts
// directly: every program a root daemon or test started held it. One that
// outlives the server keeps the mount's connection alive with no one to
// answer, and every access to the mount then hangs instead of failing
// with ENOTCONN (a test's `cat` did so, with every test that looked at
// the mounts after it). So root's direct mount is made with forks held
// off (syscall.ForkLock), and its descriptor marked before they resume;
// if it fails, the mount is tried as fs.Mount would, through fusermount3,
// which forks and so is not under the lock.
func MountServer(dir string, root fs.InodeEmbedder, o *fs.Options) (*fuse.Server, error) {
	if o.DirectMount {
		strict := *o
		strict.DirectMountStrict = true
		syscall.ForkLock.Lock()
		server, err := fs.Mount(dir, root, &strict)
		if err == nil {
			devFuseCloseOnExec()
		}
		syscall.ForkLock.Unlock()
		if err == nil {
			return server, nil
		}
	}
	return fs.Mount(dir, root, o)
}

// devFuseCloseOnExec marks every descriptor of the process that is open
// on /dev/fuse close-on-exec.
func devFuseCloseOnExec() {
	fds, _ := os.ReadDir("/proc/self/fd")
	for _, e := range fds {
		fd, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if target, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && target == "/dev/fuse" {
			syscall.CloseOnExec(fd)
		}
	}
}
