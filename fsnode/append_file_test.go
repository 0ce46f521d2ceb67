package fsnode

import (
	"fmt"
	"syscall"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// A lookup of append answers the node of the last one while nobody has
// that open, so the kernel keeps its entry (one lookup an `echo >>`), and a
// node of its own while a writer has it open, so writers at once never
// share a node's lock. Every node has the path's one inode number.
func TestAppendNodePerWriter(t *testing.T) {
	st := newStore(t)
	s, _, err := st.Create("s", backing.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	k := newKernel(t, st, Options{})

	first := k.node("s/append")
	if again := k.node("s/append"); again != first {
		t.Fatalf("a second lookup with nobody writing: node %d, want the first's, %d", again, first)
	}

	w1 := k.mustOpen("s/append", syscall.O_WRONLY|syscall.O_APPEND)
	if w1.node != first {
		t.Fatalf("the first writer opened node %d, want the node nobody had open, %d", w1.node, first)
	}
	w2 := k.mustOpen("s/append", syscall.O_WRONLY|syscall.O_APPEND)
	if w2.node == first {
		t.Fatalf("a second writer at once got the first's node, %d", first)
	}
	for i, w := range []*handle{w1, w2} {
		if _, errno := w.write(fmt.Sprintf(`{"role":"user","content":"%d"}`+"\n", i), 0); errno != 0 {
			t.Fatalf("write: %v", errno)
		}
	}

	a1, _ := k.statNode(first, 0)
	a2, _ := k.statNode(w2.node, 0)
	if a1.Ino != a2.Ino {
		t.Errorf("inode numbers %d and %d, want one for the path", a1.Ino, a2.Ino)
	}

	for _, w := range []*handle{w1, w2} {
		if errno := w.close(); errno != 0 {
			t.Fatalf("close: %v", errno)
		}
	}
	if again := k.node("s/append"); again != w2.node {
		t.Errorf("a lookup once every writer closed: node %d, want the last one's, %d", again, w2.node)
	}
	v, err := s.ViewID("")
	if err != nil {
		t.Fatal(err)
	}
	if v.Len() != 2 {
		t.Errorf("%d messages, want the two written", v.Len())
	}
}
