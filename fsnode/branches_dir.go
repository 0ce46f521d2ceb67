package fsnode

import (
	"context"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/sessfs/sessfs/backing"
)

// branchesDir is MOUNT/<session>/branches/: one folder a branch. mkdir
// forks the default branch at its head, mv renames, rmdir deletes; in the
// trash, each fails with EROFS.
type branchesDir struct {
	base
	refusing
	s backing.Session
}

var (
	_ = (fs.NodeLookuper)((*branchesDir)(nil))
	_ = (fs.NodeReaddirer)((*branchesDir)(nil))
	_ = (fs.NodeGetattrer)((*branchesDir)(nil))
	_ = (fs.NodeMkdirer)((*branchesDir)(nil))
	_ = (fs.NodeRmdirer)((*branchesDir)(nil))
	_ = (fs.NodeRenamer)((*branchesDir)(nil))
)

func (n *branchesDir) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	t, err := n.s.LastAppend()
	if err != nil {
		return n.fsys.toErrno(err)
	}
	n.fsys.dirAttr(out, t)
	return 0
}

func (n *branchesDir) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	list, err := n.s.Branches()
	if err != nil {
		return nil, n.fsys.toErrno(err)
	}
	n.fsys.reportBadBranches(n.s)
	out := make([]fuse.DirEntry, len(list))
	for i, b := range list {
		out[i] = fuse.DirEntry{Name: b.Name, Mode: syscall.S_IFDIR, Ino: ino(kindBranch, n.fsys.inoID(n.s.ID()), b.ID)}
	}
	return fs.NewListDirStream(out), 0
}

func (n *branchesDir) node(ctx context.Context, b backing.Branch, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	in := child(ctx, &n.Inode, b.Name, &branchDir{base: base{fsys: n.fsys}, ref: branchRef{s: n.s, id: b.ID}}, syscall.S_IFDIR, ino(kindBranch, n.fsys.inoID(n.s.ID()), b.ID))
	return in, lookupAttr(ctx, in, out)
}

func (n *branchesDir) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	b, err := n.s.Branch(name)
	if err != nil {
		return nil, n.fsys.toErrno(err)
	}
	return n.node(ctx, b, out)
}

func (n *branchesDir) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if errno := n.fsys.changeable(ctx, n.s); errno != 0 {
		return nil, errno
	}
	b, err := n.s.Fork("", backing.Head, name)
	if err != nil {
		return nil, n.fsys.toErrno(err)
	}
	return n.node(ctx, b, out)
}

func (n *branchesDir) Rmdir(ctx context.Context, name string) syscall.Errno {
	if errno := n.fsys.changeable(ctx, n.s); errno != 0 {
		return errno
	}
	b, err := n.s.Branch(name)
	if err != nil {
		return n.fsys.toErrno(err)
	}
	return n.fsys.toErrno(n.s.DeleteBranch(b.ID))
}

// Rename renames a branch within this folder. Branches do not move between
// sessions or out of branches/: EPERM, not EXDEV, which would make mv copy
// the tree and then fail to remove it.
func (n *branchesDir) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	if errno := n.fsys.changeable(ctx, n.s); errno != 0 {
		return errno
	}
	if newParent.EmbeddedInode() != &n.Inode {
		return syscall.EPERM
	}
	if flags&fs.RENAME_EXCHANGE != 0 {
		return syscall.EINVAL
	}
	b, err := n.s.Branch(name)
	if err != nil {
		return n.fsys.toErrno(err)
	}
	return n.fsys.toErrno(n.s.RenameBranch(b.ID, newName))
}
