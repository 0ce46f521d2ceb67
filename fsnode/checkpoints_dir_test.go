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
	if _, errno := k.create("s/checkpoints/new", syscall.O_WRONLY); errno != syscall.EPERM {
		t.Errorf("create in checkpoints/: %v, want EPERM", errno)
	}
	if errno := k.mkdir("s/checkpoints/new"); errno != syscall.EPERM {
		t.Errorf("mkdir in checkpoints/: %v, want EPERM", errno)
	}
}
