package fsnode

import (
	"fmt"
	"testing"
)

// Hashed inode numbers stay in [2, 2^63): go-fuse numbers the nodes made
// without one from 2^63 up, and 0 and 1 (the root) are taken.
func TestInoRange(t *testing.T) {
	high := 0
	for kind := kindSession; kind <= kindTagLink; kind++ {
		for i := range 2000 {
			n := ino(kind, fmt.Sprintf("01900000-0000-7000-8000-%012d", i), "branch")
			if n < 2 || n >= 1<<63 {
				high++
				if high < 5 {
					t.Errorf("ino(%d, …%d) = %d, out of [2, 2^63)", kind, i, n)
				}
			}
		}
	}
	if high > 0 {
		t.Errorf("%d numbers out of range", high)
	}
}
