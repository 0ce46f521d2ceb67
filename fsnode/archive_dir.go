package fsnode

import (
	"context"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/sessfs/sessfs/backing"
)

// archiveDir is MOUNT/archive/: the archived sessions, each at this one
// path while archived. `mv MOUNT/x MOUNT/archive/` archives x; `mv
// MOUNT/archive/x MOUNT/` brings it back.
type archiveDir struct {
	base
	refusing
}

var (
	_ = (fs.NodeLookuper)((*archiveDir)(nil))
	_ = (fs.NodeReaddirer)((*archiveDir)(nil))
	_ = (fs.NodeGetattrer)((*archiveDir)(nil))
	_ = (fs.NodeRenamer)((*archiveDir)(nil))
	_ = (fs.NodeRmdirer)((*archiveDir)(nil))
)

func (n *archiveDir) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	n.fsys.dirAttr(out, n.fsys.storeTime())
	return 0
}

func (n *archiveDir) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	names, err := n.fsys.st.ArchivedNames()
	if err != nil {
		return nil, n.fsys.toErrno(err)
	}
	return fs.NewListDirStream(n.fsys.sessionEntries(names, backing.StateArchived, nil)), 0
}

func (n *archiveDir) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	s, state, err := n.fsys.st.Lookup(name)
	if err != nil {
		return nil, n.fsys.toErrno(err)
	}
	if state != backing.StateArchived {
		return nil, syscall.ENOENT
	}
	in := n.fsys.sessionNode(ctx, &n.Inode, name, s)
	return in, lookupAttr(ctx, in, out)
}

func (n *archiveDir) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	if errno := n.fsys.writable(ctx); errno != 0 {
		return errno
	}
	if _, ok := newParent.(*Root); !ok || newName != name || flags&fs.RENAME_EXCHANGE != 0 {
		return syscall.EPERM
	}
	return n.fsys.toErrno(n.fsys.st.Unarchive(name))
}

func (n *archiveDir) Rmdir(ctx context.Context, name string) syscall.Errno {
	if errno := n.fsys.writable(ctx); errno != 0 {
		return errno
	}
	if _, state, err := n.fsys.st.Lookup(name); err != nil || state != backing.StateArchived {
		return syscall.ENOENT
	}
	return n.fsys.toErrno(n.fsys.st.Trash(name))
}
