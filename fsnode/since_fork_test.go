package fsnode

import (
	"bytes"
	"fmt"
	"slices"
	"syscall"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// forkedSession is session s: main of m1 m2 m3, x forked after m2 with x1
// x2, and xx forked from x at its head with xx1. It returns the branches'
// ids by name.
func forkedSession(t *testing.T, st backing.Store) (backing.Session, map[string]string) {
	t.Helper()
	s, _, err := st.Create("s", backing.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	add := func(id string, texts ...string) {
		t.Helper()
		var msgs [][]byte
		for _, c := range texts {
			msgs = append(msgs, fmt.Appendf(nil, `{"role":"user","content":%q}`, c))
		}
		if err := s.AppendID(id, msgs); err != nil {
			t.Fatal(err)
		}
	}
	add("", "m1", "m2", "m3")
	main, err := s.Branch("")
	if err != nil {
		t.Fatal(err)
	}
	x, err := s.Fork(main.ID, 2, "x")
	if err != nil {
		t.Fatal(err)
	}
	add(x.ID, "x1", "x2")
	xx, err := s.Fork(x.ID, backing.Head, "xx")
	if err != nil {
		t.Fatal(err)
	}
	add(xx.ID, "xx1")
	return s, map[string]string{"main": main.ID, "x": x.ID, "xx": xx.ID}
}

// since-fork.jsonl is the end of messages.jsonl: the lines after the fork
// point, with its exact size, growing with the branch; the default branch
// has no fork point and shows them all.
func TestSinceFork(t *testing.T) {
	st := newStore(t)
	s, ids := forkedSession(t, st)
	k := newKernel(t, st, Options{})
	for _, c := range []struct {
		branch    string
		inherited int
	}{{"main", 0}, {"x", 2}, {"xx", 4}} {
		dir := "s/branches/" + c.branch
		all := k.catFile(dir+"/messages.jsonl", 4096)
		lines := bytes.SplitAfter(all, []byte("\n"))
		want := bytes.Join(lines[c.inherited:], nil)
		got := k.catFile(dir+"/since-fork.jsonl", 7) // small reads cross lines
		if !bytes.Equal(got, want) {
			t.Errorf("%s/since-fork.jsonl = %q, want %q", dir, got, want)
		}
		if a, errno := k.stat(dir + "/since-fork.jsonl"); errno != 0 || a.Size != uint64(len(want)) {
			t.Errorf("stat %s/since-fork.jsonl: size %d, %v; want %d", dir, a.Size, errno, len(want))
		}
	}
	if err := s.AppendID(ids["x"], [][]byte{[]byte(`{"role":"user","content":"x3"}`)}); err != nil {
		t.Fatal(err)
	}
	got := k.catFile("s/branches/x/since-fork.jsonl", 4096)
	if n := bytes.Count(got, []byte("\n")); n != 3 || !bytes.Contains(got, []byte(`"content":"x3"`)) {
		t.Errorf("since-fork.jsonl after an append: %q", got)
	}
	if a, _ := k.stat("s/branches/x/since-fork.jsonl"); a.Size != uint64(len(got)) {
		t.Errorf("size %d after an append, content %d bytes", a.Size, len(got))
	}
	if !slices.Contains(k.ls("s/branches/x"), "since-fork.jsonl") || slices.Contains(k.ls("s"), "since-fork.jsonl") {
		t.Errorf("since-fork.jsonl is listed in every branch folder and not at the top: %v, %v", k.ls("s/branches/x"), k.ls("s"))
	}
	if _, errno := k.open("s/branches/x/since-fork.jsonl", syscall.O_WRONLY); errno != syscall.EACCES {
		t.Errorf("open since-fork.jsonl for writing: %v, want EACCES", errno)
	}
}
