package fsnode

import (
	"bytes"
	"slices"
	"syscall"
	"testing"

	"github.com/sessfs/sessfs/backing/memstore"
)

// tmpKernel mounts a fresh store in process with tmp/ kept by a memstore.
func tmpKernel(t *testing.T) (*kernel, *memstore.Store) {
	t.Helper()
	mem := memstore.New(memstore.Options{})
	return newKernel(t, newStore(t), Options{Tmp: mem}), mem
}

// TestTmpListed: tmp/ is a view of the root when the mount keeps
// ephemeral sessions, and nothing without.
func TestTmpListed(t *testing.T) {
	k, _ := tmpKernel(t)
	if !slices.Contains(k.ls(""), tmpName) {
		t.Errorf("root lists %q, without tmp", k.ls(""))
	}
	if errno := k.mkdir(tmpName); errno != syscall.EEXIST {
		t.Errorf("mkdir tmp = %v, want EEXIST", errno)
	}
	plain := newKernel(t, newStore(t), Options{})
	if slices.Contains(plain.ls(""), tmpName) {
		t.Errorf("a mount without Options.Tmp lists tmp: %q", plain.ls(""))
	}
	if _, errno := plain.lookup(tmpName); errno != syscall.ENOENT {
		t.Errorf("lookup tmp without Options.Tmp = %v, want ENOENT", errno)
	}
}

// TestTmpSessions: a session made in tmp/ is in memory alone, a folder as
// at the root, and rmdir drops it for good.
func TestTmpSessions(t *testing.T) {
	k, mem := tmpKernel(t)
	if errno := k.mkdir("tmp/x"); errno != 0 {
		t.Fatalf("mkdir tmp/x: %v", errno)
	}
	if names, _ := k.st.Names(); len(names) != 0 {
		t.Errorf("the store has %q after mkdir tmp/x", names)
	}
	if names, _ := mem.Names(); !slices.Equal(names, []string{"x"}) {
		t.Errorf("memory has %q, want [x]", names)
	}
	for _, f := range []string{"meta.json", "transcript.md", "messages.jsonl", "append", "branches/main", "turns"} {
		if _, errno := k.stat("tmp/x/" + f); errno != 0 {
			t.Errorf("stat tmp/x/%s: %v", f, errno)
		}
	}
	if errno := k.mkdir("tmp/x/branches/y"); errno != 0 {
		t.Errorf("fork in tmp/: %v", errno)
	}
	// A session of the same name at the root is another session.
	if errno := k.mkdir("x"); errno != 0 {
		t.Fatalf("mkdir x: %v", errno)
	}
	if errno := k.rename("tmp/x", "tmp/z", 0); errno != 0 {
		t.Errorf("mv tmp/x tmp/z: %v", errno)
	}
	if errno := k.rmdir("tmp/z"); errno != 0 {
		t.Fatalf("rmdir tmp/z: %v", errno)
	}
	if names, _ := mem.Names(); len(names) != 0 {
		t.Errorf("memory has %q after rmdir", names)
	}
	if ids, _ := mem.TrashedIDs(); len(ids) != 0 {
		t.Errorf("rmdir in tmp/ left %q in a trash", ids)
	}
	if names, _ := k.st.Names(); !slices.Equal(names, []string{"x"}) {
		t.Errorf("the store has %q, want [x]", names)
	}
}

// TestTmpInodes: tmp/'s listing gives the numbers its lookups give, and a
// session moved into the store gets numbers of its own there, though it
// keeps its id.
func TestTmpInodes(t *testing.T) {
	k, mem := tmpKernel(t)
	for _, name := range []string{"a", "b"} {
		if errno := k.mkdir("tmp/" + name); errno != 0 {
			t.Fatal(errno)
		}
	}
	for _, e := range k.dirents("tmp") {
		a, errno := k.stat("tmp/" + e.Name)
		if errno != 0 || a.Ino != e.Ino {
			t.Errorf("tmp/%s: d_ino %d, st_ino %d (%v)", e.Name, e.Ino, a.Ino, errno)
		}
	}
	s, err := mem.Session("a")
	if err != nil {
		t.Fatal(err)
	}
	before := map[string]uint64{}
	for _, p := range []string{"", "/meta.json", "/transcript.md", "/branches"} {
		a, _ := k.stat("tmp/a" + p)
		before[p] = a.Ino
	}
	if errno := k.rename("tmp/a", "a", 0); errno != 0 {
		t.Fatalf("mv tmp/a a: %v", errno)
	}
	kept, err := k.st.Session("a")
	if err != nil || kept.ID() != s.ID() {
		t.Fatalf("the store's a: %v, id %v, want %s", err, kept, s.ID())
	}
	for p, old := range before {
		a, errno := k.stat("a" + p)
		if errno != 0 || a.Ino == old {
			t.Errorf("a%s: st_ino %d (%v), the number tmp/a%s had", p, a.Ino, errno, p)
		}
	}
	if _, ok := k.inode("a").Operations().(*sessionDir); !ok || k.inode("a").Operations().(*sessionDir).fsys != k.root.fsys {
		t.Errorf("a is not a folder of the store's session")
	}
}

// TestTmpKeep: mv tmp/x NAME copies every branch and message into the
// store, byte for byte, under the session's id, and drops it from memory;
// a name the store has is EEXIST and changes nothing; the way back is
// EPERM.
func TestTmpKeep(t *testing.T) {
	k, mem := tmpKernel(t)
	if errno := k.mkdir("tmp/x"); errno != 0 {
		t.Fatal(errno)
	}
	s, _ := mem.Session("x")
	if err := s.AppendID("", [][]byte{[]byte(`{"role":"user","content":"q1"}`), []byte(`{"role":"assistant","content":"a1"}`)}); err != nil {
		t.Fatal(err)
	}
	y, err := s.Fork("", 1, "y")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AppendID(y.ID, [][]byte{[]byte(`{"role":"assistant","content":"other"}`)}); err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{}
	for _, b := range []string{"main", "y"} {
		want[b] = k.catFile("tmp/x/branches/"+b+"/messages.jsonl", 1<<20)
	}
	if errno := k.mkdir("taken"); errno != 0 {
		t.Fatal(errno)
	}
	if errno := k.rename("tmp/x", "taken", 0); errno != syscall.EEXIST {
		t.Errorf("mv tmp/x taken = %v, want EEXIST", errno)
	}
	if errno := k.rename("tmp/x", "archive", 0); errno != syscall.EEXIST {
		t.Errorf("mv tmp/x archive = %v, want EEXIST", errno)
	}
	if names, _ := mem.Names(); !slices.Equal(names, []string{"x"}) {
		t.Fatalf("refused moves left memory with %q", names)
	}
	if errno := k.rename("tmp/x", "kept", 0); errno != 0 {
		t.Fatalf("mv tmp/x kept: %v", errno)
	}
	if names, _ := mem.Names(); len(names) != 0 {
		t.Errorf("memory still has %q", names)
	}
	if _, err := mem.SessionByID(s.ID()); err == nil {
		t.Errorf("memory still has session %s", s.ID())
	}
	kept, err := k.st.Session("kept")
	if err != nil || kept.ID() != s.ID() {
		t.Fatalf("kept: %v, want session %s", err, s.ID())
	}
	for b, w := range want {
		if got := k.catFile("kept/branches/"+b+"/messages.jsonl", 1<<20); !bytes.Equal(got, w) {
			t.Errorf("branch %s after the move:\n%s\nwant\n%s", b, got, w)
		}
	}
	if errno := k.rename("kept", "tmp/kept", 0); errno != syscall.EPERM {
		t.Errorf("mv kept tmp/kept = %v, want EPERM", errno)
	}
	if errno := k.rename("taken", "tmp/taken", 0); errno != syscall.EPERM {
		t.Errorf("mv taken tmp/taken = %v, want EPERM", errno)
	}
	if names, _ := k.st.Names(); !slices.Equal(names, []string{"kept", "taken"}) {
		t.Errorf("the store has %q, want [kept taken]", names)
	}
	if _, errno := k.lookup("tmp/kept"); errno != syscall.ENOENT {
		t.Errorf("tmp/kept after refused moves: %v, want ENOENT", errno)
	}
}

// Held counts what tmp/'s sessions hold too: their renderings' caches are
// tmp/'s own, and a leak of them was invisible to the memory tests.
func TestHeldCountsTmp(t *testing.T) {
	k, _ := tmpKernel(t)
	if errno := k.mkdir("tmp/x"); errno != 0 {
		t.Fatalf("mkdir tmp/x: %v", errno)
	}
	before := k.root.Held()["sizes"]
	a, errno := k.stat("tmp/x/transcript.md")
	if errno != 0 {
		t.Fatal(errno)
	}
	k.catFile("tmp/x/transcript.md", int(a.Size))
	if got := k.root.Held()["sizes"]; got <= before {
		t.Errorf("reading tmp/x/transcript.md: %d size caches held, %d before", got, before)
	}
}
