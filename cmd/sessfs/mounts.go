package main

import (
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
// tmpfs mount".
func (e mountEntry) what() string {
	if e.fstype == sessfsType {
		return "a sessfs mount of " + e.source
	}
	return "a " + e.fstype + " mount"
}

// mountedAt is the topmost mount on dir (an absolute path, symlinks
// resolved: see mountPath), if dir is a mount point; err when the mount
// table cannot be read.
func mountedAt(dir string) (e mountEntry, ok bool, err error) {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return mountEntry{}, false, err
	}
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
		if sep < 0 || sep+2 >= len(f) || unescapeMount(f[4]) != dir {
			continue
		}
		// Later lines are mounted over earlier ones: the last one wins.
		e, ok = mountEntry{dir: dir, fstype: f[sep+1], source: unescapeMount(f[sep+2])}, true
	}
	return e, ok, nil
}

// mountPath is path as the mount table names it: absolute, with symlinks
// resolved. Only a symlink is followed at the last element: a dead mount
// there cannot even be stat'ed.
func mountPath(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if fi, err := os.Lstat(abs); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return filepath.EvalSymlinks(abs)
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.Base(abs)), nil
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
