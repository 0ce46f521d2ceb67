package fsnode

import (
	"bytes"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"

	"github.com/sessfs/sessfs/backing"
)

// A session folder takes editors' temporaries and nothing else: other
// names fail with EPERM, generated names with EEXIST, and too long ones
// with ENAMETOOLONG. A temporary reads back what was written, lists, and
// takes sizes, modes and times (mode stays 0600).
func TestScratchCreate(t *testing.T) {
	st, _ := testSession(t)
	k := newKernel(t, st, Options{})
	for name, want := range map[string]syscall.Errno{
		"notes.md":                             syscall.EPERM,
		"sedAb12Cd":                            syscall.EPERM,
		"transcript.md":                        syscall.EEXIST,
		"meta.json":                            syscall.EEXIST,
		"branches":                             syscall.EEXIST,
		"meta.json" + strings.Repeat("~", 250): syscall.ENAMETOOLONG,
		".meta.json.swp":                       0,
		"4913":                                 0,
		"#meta.json#":                          0,
	} {
		h, errno := k.create("s/"+name, syscall.O_WRONLY|syscall.O_EXCL)
		if errno != want {
			t.Errorf("create %.20s…: %v, want %v", name, errno, want)
		}
		if errno == 0 {
			h.release()
		}
	}
	if _, errno := k.create("s/4913", syscall.O_WRONLY|syscall.O_EXCL); errno != syscall.EEXIST {
		t.Errorf("create O_EXCL of an existing temporary: %v, want EEXIST", errno)
	}
	h, errno := k.create("s/4913", syscall.O_WRONLY) // open(O_CREAT) of one made meanwhile opens it
	if errno != 0 {
		t.Fatalf("create of an existing temporary: %v", errno)
	}
	h.release()
	names, _ := k.readdir("s")
	for _, n := range []string{".meta.json.swp", "4913", "#meta.json#", "meta.json", "transcript.md"} {
		if !slices.Contains(names, n) {
			t.Errorf("s/ does not list %s: %v", n, names)
		}
	}
	if slices.Contains(names, "notes.md") {
		t.Errorf("s/ lists a refused name")
	}

	f := k.mustOpen("s/.meta.json.swp", syscall.O_RDWR)
	if _, errno := f.write("hello, ", 0); errno != 0 {
		t.Fatal(errno)
	}
	if _, errno := f.write("swap", 7); errno != 0 {
		t.Fatal(errno)
	}
	if b, _ := f.read(0, 100); string(b) != "hello, swap" {
		t.Errorf("the temporary reads %q", b)
	}
	f.release()
	a, errno := k.setattr("s/.meta.json.swp", 0, chmodIn)
	if errno != 0 || a.Mode != syscall.S_IFREG|0o600 || a.Size != 11 {
		t.Errorf("chmod of a temporary: %v, mode %o size %d; want it taken, 0600, 11", errno, a.Mode, a.Size)
	}
	if _, errno := k.setattr("s/.meta.json.swp", 0, touchIn); errno != 0 {
		t.Errorf("touch of a temporary: %v", errno)
	}
	if a, errno := k.setattr("s/.meta.json.swp", 0, truncIn(5)); errno != 0 || a.Size != 5 {
		t.Errorf("truncate of a temporary: %v, size %d", errno, a.Size)
	}
	if got := k.catFile("s/.meta.json.swp", 3); string(got) != "hello" {
		t.Errorf("after truncate: %q", got)
	}
	f = k.mustOpen("s/.meta.json.swp", syscall.O_WRONLY|syscall.O_TRUNC)
	f.release()
	if a, _ := k.stat("s/.meta.json.swp"); a.Size != 0 {
		t.Errorf("after O_TRUNC: size %d", a.Size)
	}
	// unlink: temporaries go, generated files stay (EPERM).
	for name, want := range map[string]syscall.Errno{".meta.json.swp": 0, "4913": 0, "transcript.md": syscall.EPERM, "meta.json": syscall.EPERM, "append": syscall.EPERM, "nothing": syscall.ENOENT} {
		if errno := k.unlink("s/" + name); errno != want {
			t.Errorf("unlink %s: %v, want %v", name, errno, want)
		}
	}
	if _, errno := k.lookup("s/4913"); errno != syscall.ENOENT {
		t.Errorf("lookup of an unlinked temporary: %v, want ENOENT", errno)
	}
	for _, p := range []string{"s/x", "s/meta.json.tmp"} {
		if errno := k.mkdir(p); errno != syscall.EPERM {
			t.Errorf("mkdir %s: %v, want EPERM", p, errno)
		}
	}
	ro := newKernel(t, st, Options{ReadOnly: true})
	if _, errno := ro.create("s/meta.json~", syscall.O_WRONLY); errno != syscall.EROFS {
		t.Errorf("create on a read-only mount: %v, want EROFS", errno)
	}
}

// A folder holds at most maxScratchFiles temporaries (ENOSPC past them).
func TestScratchBounded(t *testing.T) {
	st, _ := testSession(t)
	k := newKernel(t, st, Options{})
	for i := range maxScratchFiles + 1 {
		name := "s/meta.json." + strings.Repeat("x", i+1)
		h, errno := k.create(name, syscall.O_WRONLY)
		want := syscall.Errno(0)
		if i == maxScratchFiles {
			want = syscall.ENOSPC
		}
		if errno != want {
			t.Fatalf("temporary %d: %v, want %v", i+1, errno, want)
		}
		if errno == 0 {
			h.release()
		}
	}
}

// Write-then-rename, the save of many editors: a temporary renamed onto
// meta.json replaces the document if it is valid, and is gone, its
// memory given back; the kernel is told to look meta.json up again. An
// invalid one fails with EINVAL and both stay as they were.
func TestScratchRenameOntoMeta(t *testing.T) {
	st, s := testSession(t)
	k := newKernel(t, st, Options{})
	before, _ := s.MetaBytes()
	_ = k.node("s/meta.json")

	// save makes a temporary holding doc and renames it onto meta.json;
	// it returns the temporary's node and the rename's error.
	save := func(name, doc string) (uint64, syscall.Errno) {
		t.Helper()
		h, errno := k.create("s/"+name, syscall.O_WRONLY|syscall.O_EXCL)
		if errno != 0 {
			t.Fatalf("create %s: %v", name, errno)
		}
		if _, errno := h.write(doc, 0); errno != 0 {
			t.Fatalf("write %s: %v", name, errno)
		}
		if errno := h.close(); errno != 0 {
			t.Fatalf("close %s: %v", name, errno)
		}
		return h.node, k.rename("s/"+name, "s/meta.json", 0)
	}
	if _, errno := save("meta.json.tmp", `{"id":"other"}`); errno != syscall.EINVAL {
		t.Errorf("rename of another id onto meta.json: %v, want EINVAL", errno)
	}
	if errno := k.rename("s/meta.json.tmp", "s/meta.json", 0); errno != syscall.EINVAL {
		t.Errorf("the same again: %v, want EINVAL", errno)
	}
	if got := k.catFile("s/meta.json.tmp", 100); string(got) != `{"id":"other"}` {
		t.Errorf("the refused temporary holds %q", got)
	}
	if now, _ := s.MetaBytes(); !bytes.Equal(now, before) {
		t.Errorf("a refused rename changed meta.json")
	}
	if errno := k.unlink("s/meta.json.tmp"); errno != 0 {
		t.Fatal(errno)
	}

	doc := `{"id":"` + s.ID() + `","title":"saved by rename","tags":["r"]}`
	renamed, errno := save(".meta.json.12345", doc)
	if errno != 0 {
		t.Fatalf("rename onto meta.json: %v", errno)
	}
	if m, _ := s.Meta(); m.Title != "saved by rename" {
		t.Errorf("title %q after the rename", m.Title)
	}
	// Until the kernel looks meta.json up again it still maps the name to
	// the temporary's node: that reads as the document now stored, not as
	// nothing (a cat right after an editor's save).
	h, errno := k.openNode(renamed, syscall.O_RDONLY)
	if errno != 0 {
		t.Fatalf("open of the renamed temporary's node: %v", errno)
	}
	if got, _ := h.read(0, 4096); !bytes.Equal(got, shownMetaBytes(t, s)) {
		t.Errorf("the renamed temporary's node reads %q, want the stored meta.json", got)
	}
	h.close()
	select {
	case name := <-k.tell.entry:
		if name != "meta.json" {
			t.Errorf("told the kernel of %q, want meta.json", name)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("the kernel was not told to look meta.json up again")
	}
	if names, _ := k.readdir("s"); slices.Contains(names, ".meta.json.12345") {
		t.Errorf("the temporary is still listed after its rename: %v", names)
	}
	if got := shownMeta(t, k, "s/meta.json"); got["title"] != "saved by rename" {
		t.Errorf("meta.json through the mount: %v", got)
	}
	if held := k.root.Held()["buffered"]; held != 0 {
		t.Errorf("%d bytes held once the temporary is gone", held)
	}
}

// shownMetaBytes is meta.json as the mount shows s's meta.
func shownMetaBytes(t *testing.T, s backing.Session) []byte {
	t.Helper()
	doc, _, err := metaDoc{s}.read()
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// Among temporaries a rename moves one, replacing another unless
// RENAME_NOREPLACE; a temporary does not become a file of its own name
// (EPERM), generated files do not move (EPERM), nor does anything leave
// the folder; emacs's lock link is made and read, but is no document.
func TestScratchRenameRules(t *testing.T) {
	st, _ := testSession(t)
	if _, _, err := st.Create("t", backing.Meta{}); err != nil {
		t.Fatal(err)
	}
	k := newKernel(t, st, Options{})
	mk := func(name, data string) {
		t.Helper()
		h, errno := k.create("s/"+name, syscall.O_WRONLY)
		if errno != 0 {
			t.Fatalf("create %s: %v", name, errno)
		}
		h.write(data, 0)
		h.close()
	}
	mk("meta.json~", "backup")
	mk("meta.json.tmp", "tmp")
	for _, c := range []struct {
		from, to string
		flags    uint32
		errno    syscall.Errno
	}{
		{"s/meta.json~", "s/meta.json.tmp", unix.RENAME_NOREPLACE, syscall.EEXIST},
		{"s/meta.json~", "s/notes.md", 0, syscall.EPERM},
		{"s/meta.json~", "s/transcript.md", 0, syscall.EPERM},
		{"s/meta.json~", "t/meta.json~", 0, syscall.EPERM},
		{"s/meta.json~", "s/meta.json.tmp", fs.RENAME_EXCHANGE, syscall.EPERM},
		{"s/meta.json", "s/meta.json~~", 0, syscall.EPERM},
		{"s/transcript.md", "s/x", 0, syscall.EPERM},
		{"s/nothing", "s/meta.json~~", 0, syscall.ENOENT},
		{"s/meta.json~", "s/meta.json.tmp", 0, 0},
	} {
		if errno := k.rename(c.from, c.to, c.flags); errno != c.errno {
			t.Errorf("mv %s %s (flags %#x): %v, want %v", c.from, c.to, c.flags, errno, c.errno)
		}
	}
	if got := k.catFile("s/meta.json.tmp", 100); string(got) != "backup" {
		t.Errorf("after the replacing rename: %q", got)
	}
	if _, errno := k.lookup("s/meta.json~"); errno != syscall.ENOENT {
		t.Errorf("the renamed temporary's old name: %v, want ENOENT", errno)
	}
	if held := k.root.Held()["buffered"]; held <= 0 {
		t.Errorf("the remaining temporary holds nothing of the budget")
	}

	if errno := k.symlink("user@host.123", "s/.#meta.json"); errno != 0 {
		t.Fatalf("emacs's lock: %v", errno)
	}
	if target, errno := k.readlink("s/.#meta.json"); errno != 0 || target != "user@host.123" {
		t.Errorf("readlink: %q, %v", target, errno)
	}
	if a, _ := k.stat("s/.#meta.json"); a.Mode&syscall.S_IFMT != syscall.S_IFLNK {
		t.Errorf("the lock's mode %o", a.Mode)
	}
	if errno := k.symlink("x", "s/notes"); errno != syscall.EPERM {
		t.Errorf("another link: %v, want EPERM", errno)
	}
	if errno := k.rename("s/.#meta.json", "s/meta.json", 0); errno != syscall.EPERM {
		t.Errorf("a link onto meta.json: %v, want EPERM", errno)
	}
	if errno := k.unlink("s/.#meta.json"); errno != 0 {
		t.Errorf("unlink of the lock: %v", errno)
	}

	// In the trash: no rename, no new temporary (EROFS).
	dir := k.node("s")
	if err := st.Trash("s"); err != nil {
		t.Fatal(err)
	}
	in := fuse.RenameIn{InHeader: k.header(dir), Newdir: dir}
	if errno := syscall.Errno(k.raw.Rename(nil, &in, "meta.json.tmp", "meta.json")); errno != syscall.EROFS {
		t.Errorf("rename onto meta.json in the trash: %v, want EROFS", errno)
	}
}
