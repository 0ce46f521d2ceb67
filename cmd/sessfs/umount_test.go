package main

import (
	"path/filepath"
	"testing"
)

// umount of a path where no sessfs is mounted says so in one line, and
// touches nothing. Before, it printed umount(2)'s "invalid argument" or
// fusermount's own lines.
func TestUmountNotAMount(t *testing.T) {
	s := newStore(t)
	dir := t.TempDir()
	s.fails(1, dir+" is not a sessfs mount: nothing is mounted there", "", "umount", dir)
	missing := filepath.Join(dir, "missing")
	s.fails(1, "no such file or directory", "", "umount", missing)
	// In the words of the other refusals, not lstat's.
	s.fails(1, missing+" is not a sessfs mount: no such file or directory", "", "umount", missing)
}
