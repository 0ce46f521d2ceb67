package fsnode

import (
	"slices"
	"syscall"
	"testing"
)

// branches.txt draws the fork tree with counts and fork points, at its
// exact size, and follows a new branch at the next stat.
func TestBranchesTxt(t *testing.T) {
	st := newStore(t)
	s, ids := forkedSession(t, st)
	k := newKernel(t, st, Options{})
	want := "main: 3 messages\n" +
		"└─ x: 4 messages, forked at 2\n" +
		"   └─ xx: 5 messages, forked at 4\n"
	if got := string(k.catFile("s/branches.txt", 5)); got != want {
		t.Fatalf("branches.txt =\n%s\nwant\n%s", got, want)
	}
	if _, err := s.Fork(ids["main"], 1, "y"); err != nil {
		t.Fatal(err)
	}
	want = "main: 3 messages\n" +
		"├─ x: 4 messages, forked at 2\n" +
		"│  └─ xx: 5 messages, forked at 4\n" +
		"└─ y: 1 message, forked at 1\n"
	if a, errno := k.stat("s/branches.txt"); errno != 0 || a.Size != uint64(len(want)) {
		t.Errorf("stat branches.txt after a fork: size %d, %v; want %d", a.Size, errno, len(want))
	}
	if got := string(k.catFile("s/branches.txt", 4096)); got != want {
		t.Errorf("branches.txt after a fork =\n%s\nwant\n%s", got, want)
	}
	if !slices.Contains(k.ls("s"), "branches.txt") {
		t.Errorf("ls s = %v, lacks branches.txt", k.ls("s"))
	}
	if _, errno := k.open("s/branches.txt", syscall.O_WRONLY); errno != syscall.EACCES {
		t.Errorf("open branches.txt for writing: %v, want EACCES", errno)
	}
	if _, errno := k.create("s/branches.txt", syscall.O_WRONLY); errno != syscall.EEXIST {
		t.Errorf("create branches.txt: %v, want EEXIST (a generated name)", errno)
	}
}
