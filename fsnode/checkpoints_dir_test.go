package fsnode

import (
	"encoding/json"
	"slices"
	"syscall"
	"testing"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/sessfs/sessfs/backing"
)

// dirInos is a folder's listing as name → d_ino.
func (k *kernel) dirInos(path string) map[string]uint64 {
	k.t.Helper()
	k.node(path)
	ds, errno := k.inode(path).Operations().(fs.NodeReaddirer).Readdir(&fuse.Context{Caller: k.caller()})
	if errno != 0 {
		k.t.Fatalf("readdir %s: %v", path, errno)
	}
	out := map[string]uint64{}
	for ds.HasNext() {
		e, _ := ds.Next()
		out[e.Name] = e.Ino
	}
	return out
}

func mark(t *testing.T, s backing.Session, branchID, name string) {
	t.Helper()
	line, err := backing.CheckpointEvent(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AppendID(branchID, [][]byte{line}); err != nil {
		t.Fatal(err)
	}
}

// checkpoints/ lists a branch's checkpoints in every branch folder; each
// is a read-only JSON file of exact size saying where it stands, with the
// checkpoint's time and one inode number, in listings and stat alike,
// which it keeps when its name moves on.
func TestCheckpointsDir(t *testing.T) {
	st := newStore(t)
	s, ids := forkedSession(t, st) // main m1 m2 m3; x after m2: x1 x2
	mark(t, s, ids["main"], "after-m3")
	mark(t, s, ids["x"], "on-x")
	k := newKernel(t, st, Options{})

	for _, c := range []struct {
		dir  string
		want []string
	}{
		{"s/checkpoints", []string{"after-m3"}},
		{"s/branches/main/checkpoints", []string{"after-m3"}},
		{"s/branches/x/checkpoints", []string{"on-x"}},
		{"s/branches/xx/checkpoints", nil}, // forked from x before its mark
	} {
		if got := k.ls(c.dir); !slices.Equal(got, c.want) {
			t.Errorf("ls %s = %v, want %v", c.dir, got, c.want)
		}
		for name, dino := range k.dirInos(c.dir) {
			if a, errno := k.stat(c.dir + "/" + name); errno != 0 || a.Ino != dino {
				t.Errorf("%s/%s: d_ino %d, st_ino %d (%v)", c.dir, name, dino, a.Ino, errno)
			}
		}
	}
	if !slices.Contains(k.ls("s"), "checkpoints") || !slices.Contains(k.ls("s/branches/x"), "checkpoints") {
		t.Error("checkpoints/ is not listed in the session and branch folders")
	}

	read := func(path string) backing.Checkpoint {
		t.Helper()
		data := k.catFile(path, 7) // small reads
		var c backing.Checkpoint
		if err := json.Unmarshal(data, &c); err != nil {
			t.Fatalf("%s: %v: %q", path, err, data)
		}
		if a, _ := k.stat(path); a.Size != uint64(len(data)) || a.Mode&0o222 != 0 || a.Mtime != uint64(c.Time.Unix()) {
			t.Errorf("stat %s: size %d mode %o mtime %d; read %d bytes, time %v", path, a.Size, a.Mode, a.Mtime, len(data), c.Time)
		}
		return c
	}
	c := read("s/checkpoints/after-m3")
	if c.Name != "after-m3" || c.Index != 3 || c.Visible != 3 || c.Turn != 3 || c.ID == "" {
		t.Errorf("after-m3: %+v", c)
	}
	ino := k.node("s/checkpoints/after-m3")
	attr, _ := k.stat("s/checkpoints/after-m3")

	// Marked again: the same file, where the later mark stands.
	if err := s.AppendID(ids["main"], [][]byte{[]byte(`{"role":"user","content":"m4"}`)}); err != nil {
		t.Fatal(err)
	}
	mark(t, s, ids["main"], "after-m3")
	if c := read("s/checkpoints/after-m3"); c.Index != 5 || c.Visible != 4 {
		t.Errorf("after-m3 marked again: %+v", c)
	}
	if a, _ := k.stat("s/checkpoints/after-m3"); a.Ino != attr.Ino || k.node("s/checkpoints/after-m3") != ino {
		t.Error("a checkpoint marked again changed its inode number")
	}
	// The same numbers on another mount of the store.
	if a, _ := newKernel(t, st, Options{}).stat("s/checkpoints/after-m3"); a.Ino != attr.Ino {
		t.Errorf("another mount numbers it %d, this one %d", a.Ino, attr.Ino)
	}

	if _, errno := k.stat("s/checkpoints/nope"); errno != syscall.ENOENT {
		t.Errorf("a missing checkpoint: %v, want ENOENT", errno)
	}
	if _, errno := k.open("s/checkpoints/after-m3", syscall.O_WRONLY); errno != syscall.EACCES {
		t.Errorf("open a checkpoint for writing: %v, want EACCES", errno)
	}
	if errno := k.unlink("s/checkpoints/after-m3"); errno != syscall.EPERM {
		t.Errorf("unlink a checkpoint: %v, want EPERM", errno)
	}
	if errno := k.mkdir("s/checkpoints/new"); errno != syscall.EPERM {
		t.Errorf("mkdir in checkpoints/: %v, want EPERM", errno)
	}
}

// touch checkpoints/<name> marks the branch's head, as sessfs checkpoint
// does: creating a new name appends the event line (the handle takes no
// byte), and setting a checkpoint's time to now moves it to the head
// (nothing stored when it stands there). A name the branch has is
// EEXIST to a create, one a checkpoint cannot have EINVAL, a read-only
// mount EROFS, a time given EPERM; none of them stores a line.
func TestCheckpointsTouch(t *testing.T) {
	st := newStore(t)
	s, ids := forkedSession(t, st) // main m1 m2 m3; x after m2: x1 x2
	k := newKernel(t, st, Options{})
	lines := func(id string) int {
		v, err := s.ViewID(id)
		if err != nil {
			t.Fatal(err)
		}
		return v.Len()
	}
	where := func(id, name string) int {
		v, _ := s.ViewID(id)
		c, err := backing.FindCheckpoint(v, name)
		if err != nil {
			t.Fatalf("checkpoint %s: %v", name, err)
		}
		return c.Index
	}
	mainLen, xLen := lines(ids["main"]), lines(ids["x"])
	now := fuse.SetAttrIn{SetAttrInCommon: fuse.SetAttrInCommon{Valid: fuse.FATTR_ATIME | fuse.FATTR_MTIME | fuse.FATTR_ATIME_NOW | fuse.FATTR_MTIME_NOW}}

	h, errno := k.create("s/branches/x/checkpoints/before-refactor", syscall.O_WRONLY)
	if errno != 0 {
		t.Fatalf("create in checkpoints/: %v", errno)
	}
	if _, errno := k.setattrNode(h.node, 0, now); errno != 0 {
		t.Errorf("touch's time set after its create: %v", errno)
	}
	if _, errno := h.write("x", 0); errno != syscall.EPERM {
		t.Errorf("a write to a new checkpoint: %v, want EPERM", errno)
	}
	if errno := h.close(); errno != 0 {
		t.Errorf("close: %v", errno)
	}
	if got := k.ls("s/branches/x/checkpoints"); !slices.Equal(got, []string{"before-refactor"}) {
		t.Errorf("checkpoints of x after touch: %v", got)
	}
	if at := where(ids["x"], "before-refactor"); at != xLen || lines(ids["x"]) != xLen+1 || lines(ids["main"]) != mainLen {
		t.Errorf("the mark stands at %d; x has %d lines, had %d; main %d, had %d", at, lines(ids["x"]), xLen, lines(ids["main"]), mainLen)
	}
	// Through the session folder: the default branch.
	if h, errno := k.create("s/checkpoints/on-main", syscall.O_RDONLY); errno != 0 {
		t.Errorf("create in the session's checkpoints/: %v", errno)
	} else {
		h.close()
	}
	if got := k.ls("s/branches/main/checkpoints"); !slices.Equal(got, []string{"on-main"}) {
		t.Errorf("checkpoints of main: %v", got)
	}

	// touch of a checkpoint behind the head moves it there.
	if err := s.AppendID(ids["main"], [][]byte{[]byte(`{"role":"user","content":"m4"}`)}); err != nil {
		t.Fatal(err)
	}
	mainLen = lines(ids["main"])
	if _, errno := k.setattr("s/checkpoints/on-main", 0, now); errno != 0 {
		t.Errorf("touch of a checkpoint: %v", errno)
	}
	if at := where(ids["main"], "on-main"); at != mainLen || lines(ids["main"]) != mainLen+1 {
		t.Errorf("touched, on-main stands at %d of %d lines, want the head", at, lines(ids["main"]))
	}
	mainLen = lines(ids["main"])

	// Only a new name to a create, in a writable mount; only now as a time.
	for _, c := range []struct {
		k    *kernel
		path string
		want syscall.Errno
	}{
		{k, "s/checkpoints/on-main", syscall.EEXIST},
		{k, "s/checkpoints/.swp", syscall.EINVAL},
		{newKernel(t, st, Options{ReadOnly: true}), "s/checkpoints/ro", syscall.EROFS},
	} {
		if _, errno := c.k.create(c.path, syscall.O_WRONLY); errno != c.want {
			t.Errorf("create %s: %v, want %v", c.path, errno, c.want)
		}
	}
	for _, c := range []struct {
		k     *kernel
		valid uint32
		want  syscall.Errno
	}{
		{k, fuse.FATTR_MTIME, syscall.EPERM}, // touch -d
		{k, fuse.FATTR_MODE, syscall.EPERM},
		{k, fuse.FATTR_SIZE, syscall.EPERM},
		{k, fuse.FATTR_ATIME | fuse.FATTR_ATIME_NOW, 0}, // touch -a: nothing to mark
		{newKernel(t, st, Options{ReadOnly: true}), now.Valid, syscall.EROFS},
	} {
		in := fuse.SetAttrIn{SetAttrInCommon: fuse.SetAttrInCommon{Valid: c.valid}}
		if _, errno := c.k.setattr("s/checkpoints/on-main", 0, in); errno != c.want {
			t.Errorf("setattr %#x of a checkpoint: %v, want %v", c.valid, errno, c.want)
		}
	}
	if _, errno := k.setattr("s/checkpoints/on-main", 0, now); errno != 0 {
		t.Errorf("touch of a checkpoint at the head: %v", errno)
	}
	if n := lines(ids["main"]); n != mainLen {
		t.Errorf("main has %d lines, want %d: a refused change or a touch at the head stored one", n, mainLen)
	}
}
