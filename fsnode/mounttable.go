package fsnode

import (
	"os"
	"strconv"
	"strings"
)

// FSType is the filesystem type of a sessfs mount in the mount table:
// "fuse." and the name MountOptions gives.
const FSType = "fuse.sessfs"

// Mount is one mount of the mount table.
type Mount struct {
	Dir    string // the mount point
	FSType string // FSType, "tmpfs", "ext4", …
	Source string // what is mounted: a device, or a sessfs mount's store
}

// MountTable is this mount namespace's mounts, in the order of
// /proc/self/mountinfo: a later mount on the same folder hides an earlier
// one. The command line reads it to refuse a mount that would deadlock
// and to find what to unmount; the tests, to find their mounts.
func MountTable() ([]Mount, error) {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	return parseMountTable(string(data)), nil
}

// parseMountTable reads the lines of a mountinfo file.
func parseMountTable(data string) []Mount {
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
		mounts = append(mounts, Mount{Dir: unescapeMount(f[4]), FSType: f[sep+1], Source: unescapeMount(f[sep+2])})
	}
	return mounts
}

// unescapeMount undoes the octal escapes of the mount table (\040 for a
// space, \011 for a tab, \012 for a newline, \134 for a backslash).
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
