package fsnode

import (
	"context"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// forkDir is turns/<n>/fork/: always empty. `mkdir fork/<x>` creates branch
// x from this branch after turn n; the branch appears under branches/ only,
// so every branch has one path.
type forkDir struct {
	base
	refusing
	ref   branchRef
	turn  int
	clock turnClock
}

var (
	_ = (fs.NodeLookuper)((*forkDir)(nil))
	_ = (fs.NodeReaddirer)((*forkDir)(nil))
	_ = (fs.NodeGetattrer)((*forkDir)(nil))
	_ = (fs.NodeMkdirer)((*forkDir)(nil))
)

func (n *forkDir) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	v, err := n.ref.view()
	if err != nil {
		return n.fsys.toErrno(err)
	}
	n.fsys.dirAttr(out, n.clock.turn(v, n.ref, n.turn))
	return 0
}

func (n *forkDir) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	return fs.NewListDirStream(nil), 0
}

func (n *forkDir) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	return nil, syscall.ENOENT
}

func (n *forkDir) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if errno := n.fsys.changeable(ctx, n.ref.s); errno != 0 {
		return nil, errno
	}
	v, err := n.ref.view()
	if err != nil {
		return nil, n.fsys.toErrno(err)
	}
	_, end, err := v.TurnRange(n.turn)
	if err != nil {
		return nil, n.fsys.toErrno(err)
	}
	if _, err := n.ref.s.Fork(v.Branch().ID, end, name); err != nil {
		return nil, n.fsys.toErrno(err)
	}
	// mkdir must answer with an inode; this one is not kept: its entry is
	// not cached (zero timeouts), so the next lookup asks, and hears ENOENT.
	// Its number is go-fuse's own, from 2^63 up, apart from ino's. The
	// kernel is told to drop the entry, which no lookup may ever revisit,
	// so that the node goes (a fork made and removed 10,000 times would
	// otherwise leave 10,000 nodes); not from inside this call: the kernel
	// holds the folder's lock until the mkdir returns.
	in := n.NewInode(ctx, &forkDir{base: base{fsys: n.fsys}, ref: n.ref, turn: n.turn}, fs.StableAttr{Mode: syscall.S_IFDIR})
	n.fsys.attr(&out.Attr, dirMode, 0, time.Now())
	go n.NotifyEntry(name)
	return in, 0
}
