package fsnode

import (
	"context"
	"sync/atomic"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// appendFile is a branch's `append`: writing to it adds messages (see
// appendHandle for the rules). It reads as empty and ignores offsets. A
// lookup while it is open makes a node of its own, with the path's one
// inode number (see branchFile).
type appendFile struct {
	base
	ref   branchRef
	opens atomic.Int32 // handles not yet released
}

var (
	_ = (fs.NodeGetattrer)((*appendFile)(nil))
	_ = (fs.NodeOpener)((*appendFile)(nil))
	_ = (fs.NodeSetattrer)((*appendFile)(nil))
)

func (n *appendFile) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	v, err := n.ref.view()
	if err != nil {
		return n.fsys.toErrno(err)
	}
	n.fsys.attr(&out.Attr, syscall.S_IFREG|0o200, 0, v.ModTime())
	return 0
}

// Open gives each open its own handle, so each writer's partial lines and
// text stay its own. Direct I/O: the kernel passes every write through
// (no page cache, no offsets), and reads return nothing. Opening for
// writing is refused at once on a read-only mount and in the trash.
func (n *appendFile) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if isWrite(flags) {
		if errno := n.fsys.changeable(ctx, n.ref.s); errno != 0 {
			return nil, 0, errno
		}
	}
	h := newAppendHandle(n.fsys, n.ref)
	h.node = n
	n.opens.Add(1)
	// Parallel direct writes: without it the kernel takes the inode lock
	// for every write, so writers to one append file queue one by one and
	// the store's group commit never sees two at once.
	return h, fuse.FOPEN_DIRECT_IO | fuse.FOPEN_PARALLEL_DIRECT_WRITES, 0
}

// Setattr accepts truncation to zero (`echo x > append` opens with O_TRUNC)
// and times (touch), which change nothing: append's times are its
// branch's. Anything else is refused.
func (n *appendFile) Setattr(ctx context.Context, fh fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if errno := n.fsys.changeable(ctx, n.ref.s); errno != 0 {
		return errno
	}
	if sz, ok := onlySize(in); !(ok && sz == 0) && !onlyTimes(in) {
		return syscall.EPERM
	}
	return n.Getattr(ctx, fh, out)
}
