package fsnode

import (
	"context"
	"strconv"
	"sync"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// turnsDir is <branch>/turns/: one folder a turn, named 1, 2, …
type turnsDir struct {
	base
	refusing
	ref branchRef
	ids []string // the path's ids, for inode numbers

	// What the turns' folders share of the branch, made at the first
	// lookup of a turn: their files, and what telling how they ended read.
	sharedOnce sync.Once
	snaps      *branchSnapshots
	ends       *branchEnds
}

func (n *turnsDir) shared() (*branchSnapshots, *branchEnds) {
	n.sharedOnce.Do(func() { n.snaps, n.ends = &branchSnapshots{fsys: n.fsys, ref: n.ref}, &branchEnds{} })
	return n.snaps, n.ends
}

var (
	_ = (fs.NodeLookuper)((*turnsDir)(nil))
	_ = (fs.NodeReaddirer)((*turnsDir)(nil))
	_ = (fs.NodeGetattrer)((*turnsDir)(nil))
)

func (n *turnsDir) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	v, err := n.ref.view()
	if err != nil {
		return n.fsys.toErrno(err)
	}
	// Not cached: gains a folder with every turn.
	n.fsys.attr(&out.Attr, dirMode, 0, v.ModTime())
	return 0
}

func (n *turnsDir) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	v, err := n.ref.view()
	if err != nil {
		return nil, n.fsys.toErrno(err)
	}
	out := make([]fuse.DirEntry, v.Turns())
	for i := range out {
		name := strconv.Itoa(i + 1)
		out[i] = fuse.DirEntry{Name: name, Mode: syscall.S_IFDIR, Ino: ino(kindTurn, append(n.ids, name)...)}
	}
	return fs.NewListDirStream(out), 0
}

func (n *turnsDir) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	k, err := strconv.Atoi(name)
	if err != nil || strconv.Itoa(k) != name || k < 1 {
		return nil, syscall.ENOENT
	}
	v, err := n.ref.view()
	if err != nil {
		return nil, n.fsys.toErrno(err)
	}
	if k > v.Turns() {
		return nil, syscall.ENOENT
	}
	snaps, ends := n.shared()
	in := child(ctx, &n.Inode, name, &turnDir{base: base{fsys: n.fsys}, ref: n.ref, turn: k, ids: append(append([]string(nil), n.ids...), name), snaps: snaps, ends: ends},
		syscall.S_IFDIR, ino(kindTurn, append(n.ids, name)...))
	return in, lookupAttr(ctx, in, out)
}
