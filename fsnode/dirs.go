package fsnode

import (
	"context"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// Helpers shared by the nodes.

// base is embedded in every node: the inode, the mount it belongs to,
// statfs, which the kernel may ask of any node (df on a file), and fsync.
type base struct {
	fs.Inode
	fsys *FS
}

var (
	_ = (fs.NodeStatfser)((*base)(nil))
	_ = (fs.NodeFsyncer)((*base)(nil))
)

// Fsync succeeds on every file and folder (DESIGN: fsync and fsyncdir
// succeed): what the store holds is durable already. A handle with work
// of its own at fsync (meta.json's buffer) does it.
func (b *base) Fsync(ctx context.Context, f fs.FileHandle, flags uint32) syscall.Errno {
	if h, ok := f.(fs.FileFsyncer); ok {
		return h.Fsync(ctx, flags)
	}
	return 0
}

func (b *base) Statfs(ctx context.Context, out *fuse.StatfsOut) syscall.Errno {
	return b.fsys.statfs(out)
}

// entry is one name of a folder listing. Its Ino is the number a lookup of
// the name gives: d_ino must equal st_ino (find, du and cp rely on it), and
// go-fuse would send the kernel's "unknown" (2^32-1) for a zero.
func entry(name string, mode uint32, ino uint64) fuse.DirEntry {
	return fuse.DirEntry{Name: name, Mode: mode, Ino: ino}
}

// child returns the inode for a node at a stable number, reusing the live
// one when the kernel already knows it under name. A lookup after the entry
// timeout must answer from the live node: it holds what the kernel caches
// (a rendering's known size), while a fresh one would be thrown away by
// go-fuse after answering with none of it.
func child(ctx context.Context, parent *fs.Inode, name string, node fs.InodeEmbedder, mode uint32, ino uint64) *fs.Inode {
	if in := parent.GetChild(name); in != nil && in.StableAttr().Ino == ino && in.Mode()&syscall.S_IFMT == mode&syscall.S_IFMT {
		return in
	}
	return parent.NewInode(ctx, node, fs.StableAttr{Mode: mode, Ino: ino})
}

// lookupAttr fills an entry's attributes by asking the node itself, so
// lookup and stat always agree.
func lookupAttr(ctx context.Context, in *fs.Inode, out *fuse.EntryOut) syscall.Errno {
	g, ok := in.Operations().(fs.NodeGetattrer)
	if !ok {
		return 0
	}
	var a fuse.AttrOut
	if errno := g.Getattr(ctx, nil, &a); errno != 0 {
		return errno
	}
	out.Attr = a.Attr
	out.SetAttrTimeout(a.Timeout())
	out.SetEntryTimeout(entryTimeout)
	if _, ok := in.Operations().(*appendFile); ok {
		out.SetEntryTimeout(0) // every open looks it up afresh: see branchFile
	}
	return 0
}

const (
	dirMode  = syscall.S_IFDIR | 0o755
	fileMode = syscall.S_IFREG
)

// onlyTimes reports whether a Setattr sets access or modification times
// and nothing else, as touch(1) does.
func onlyTimes(in *fuse.SetAttrIn) bool {
	const times = fuse.FATTR_ATIME | fuse.FATTR_MTIME | fuse.FATTR_ATIME_NOW | fuse.FATTR_MTIME_NOW | fuse.FATTR_CTIME
	const handle = fuse.FATTR_FH | fuse.FATTR_LOCKOWNER
	return in.Valid&times != 0 && in.Valid&^(times|handle) == 0
}

// onlySize reports whether a Setattr sets the size and nothing else, as
// truncate(2), ftruncate(2) and open(O_TRUNC) do, and the size.
func onlySize(in *fuse.SetAttrIn) (uint64, bool) {
	const handle = fuse.FATTR_FH | fuse.FATTR_LOCKOWNER | fuse.FATTR_KILL_SUIDGID
	size, ok := in.GetSize()
	return size, ok && in.Valid&^(fuse.FATTR_SIZE|handle) == 0
}

// refusing is embedded in every directory: it refuses, with EPERM, the
// changes a directory does not implement itself (go-fuse would answer
// ENOTSUP, which shells print as a puzzling "Operation not supported").
type refusing struct{}

var (
	_ = (fs.NodeCreater)((*refusing)(nil))
	_ = (fs.NodeMkdirer)((*refusing)(nil))
	_ = (fs.NodeRmdirer)((*refusing)(nil))
	_ = (fs.NodeRenamer)((*refusing)(nil))
	_ = (fs.NodeSetattrer)((*refusing)(nil))
	_ = (fs.NodeLinker)((*refusing)(nil))
	_ = (fs.NodeSymlinker)((*refusing)(nil))
	_ = (fs.NodeMknoder)((*refusing)(nil))
	_ = (fs.NodeUnlinker)((*refusing)(nil))
)

func (refusing) Create(ctx context.Context, name string, flags uint32, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	return nil, nil, 0, syscall.EPERM
}

func (refusing) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	return nil, syscall.EPERM
}

func (refusing) Rmdir(ctx context.Context, name string) syscall.Errno { return syscall.EPERM }

func (refusing) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	return syscall.EPERM
}

func (refusing) Setattr(ctx context.Context, fh fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	return syscall.EPERM
}

func (refusing) Link(ctx context.Context, target fs.InodeEmbedder, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	return nil, syscall.EPERM
}

func (refusing) Symlink(ctx context.Context, target, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	return nil, syscall.EPERM
}

func (refusing) Mknod(ctx context.Context, name string, mode uint32, dev uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	return nil, syscall.EPERM
}

func (refusing) Unlink(ctx context.Context, name string) syscall.Errno { return syscall.EPERM }
