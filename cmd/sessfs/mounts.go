package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// sessfsType is the filesystem type of a sessfs mount in the mount table:
// "fuse." and the subtype fsnode.MountOptions gives.
const sessfsType = "fuse.sessfs"

// mountEntry is one mount of the mount table.
type mountEntry struct {
	dir    string // the mount point
	fstype string // "fuse.sessfs", "tmpfs", "ext4", …
	source string // what is mounted: a device, or a sessfs mount's store
}

// what names the mount for a message: "a sessfs mount of /store" or "a
// mount of type ext4".
func (e mountEntry) what() string {
	if e.fstype == sessfsType {
		return "a sessfs mount of " + e.source
	}
	return "a mount of type " + e.fstype
}

// mountedAt is the topmost mount on dir (an absolute path, symlinks
// resolved: see realPath), if dir is a mount point; err when the mount
// table cannot be read.
func mountedAt(dir string) (e mountEntry, ok bool, err error) {
	mounts, err := mountTable()
	for _, m := range mounts {
		if m.dir == dir {
			// Later lines are mounted over earlier ones: the last one wins.
			e, ok = m, true
		}
	}
	return e, ok, err
}

// sessfsMountOver is the sessfs mount that path (absolute, symlinks
// resolved) is in, if it is in one.
func sessfsMountOver(path string) (mountEntry, bool) {
	mounts, _ := mountTable()
	for _, m := range mounts {
		if m.fstype == sessfsType && within(path, m.dir) {
			return m, true
		}
	}
	return mountEntry{}, false
}

// mountTable is this mount namespace's mounts, in the order of
// /proc/self/mountinfo.
func mountTable() ([]mountEntry, error) {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	var mounts []mountEntry
	for _, line := range strings.Split(string(data), "\n") {
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
		mounts = append(mounts, mountEntry{dir: unescapeMount(f[4]), fstype: f[sep+1], source: unescapeMount(f[sep+2])})
	}
	return mounts, nil
}

// realPath is path as the kernel resolves it, and as the mount table names
// it: absolute, with every symlink followed, a dangling one too. Where the
// path stops existing (a store about to be made), or cannot be looked up
// (a dead mount: even lstat fails there), the rest is taken as it is.
func realPath(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	links := 0
	var resolve func(p string) (string, error)
	resolve = func(p string) (string, error) {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r, nil
		}
		dir, err := resolve(filepath.Dir(p))
		if err != nil {
			return "", err
		}
		q := filepath.Join(dir, filepath.Base(p))
		target, err := os.Readlink(q)
		if err != nil {
			return q, nil // not a symlink, or not there
		}
		if links++; links > 40 {
			return "", fmt.Errorf("%s: too many levels of symbolic links", path)
		}
		if !filepath.IsAbs(target) {
			target = dir + "/" + target
		}
		return resolve(target)
	}
	return resolve(abs)
}

// unescapeMount undoes the octal escapes of the mount table (\040 for a
// space, \012 for a newline, \134 for a backslash).
func unescapeMount(s string) string {
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
