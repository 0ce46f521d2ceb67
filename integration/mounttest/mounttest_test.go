package mounttest

import (
	"testing"

	"github.com/sessfs/sessfs/fsnode"
)

// The mount table of the machine running the test has at least the root.
func TestTable(t *testing.T) {
	mounts, err := fsnode.MountTable()
	if err != nil {
		t.Skipf("no /proc/self/mountinfo: %v", err)
	}
	if !IsMountPoint("/") || len(mounts) == 0 {
		t.Errorf("/ is not in the mount table: %q", mounts)
	}
}
