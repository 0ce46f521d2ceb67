package fsnode

import (
	"context"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/sessfs/sessfs/backing"
)

// checkpointsDir is <branch>/checkpoints/: a file a checkpoint of the
// branch (backing.Checkpoints), named as the checkpoint, in the order
// they stand. touch marks the branch's head: creating a file of a new
// name, or setting a checkpoint's time to now, appends the checkpoint's
// event line, as `sessfs checkpoint` does. Nothing else changes here:
// history is never cut.
type checkpointsDir struct {
	base
	refusing
	ref branchRef
	ids []string // the path's ids, for inode numbers
}

var (
	_ = (fs.NodeLookuper)((*checkpointsDir)(nil))
	_ = (fs.NodeReaddirer)((*checkpointsDir)(nil))
	_ = (fs.NodeGetattrer)((*checkpointsDir)(nil))
	_ = (fs.NodeCreater)((*checkpointsDir)(nil))
)

func (n *checkpointsDir) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	v, err := n.ref.view()
	if err != nil {
		return n.fsys.toErrno(err)
	}
	// Not cached: gains a file with every checkpoint, as turns/ a folder.
	n.fsys.attr(&out.Attr, dirMode, 0, v.ModTime())
	return 0
}

func (n *checkpointsDir) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	v, err := n.ref.view()
	if err != nil {
		return nil, n.fsys.toErrno(err)
	}
	cs, err := backing.Checkpoints(v)
	if err != nil {
		return nil, n.fsys.toErrno(err)
	}
	out := make([]fuse.DirEntry, len(cs))
	for i, c := range cs {
		out[i] = entry(c.Name, fileMode, n.ino(c.Name))
	}
	return fs.NewListDirStream(out), 0
}

func (n *checkpointsDir) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	doc := checkpointDoc{ref: n.ref, name: name}
	if _, _, err := doc.doc(); err != nil {
		return nil, n.fsys.toErrno(err)
	}
	return n.node(ctx, name, out)
}

// Create marks the branch's head as checkpoint name (touch, or any
// create). A name the branch has already is EEXIST (O_EXCL's answer; a
// plain touch of it finds the file and moves it, see checkpointFile).
// The handle takes no byte.
func (n *checkpointsDir) Create(ctx context.Context, name string, flags uint32, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	if errno := n.fsys.changeable(ctx, n.ref.s); errno != 0 {
		return nil, nil, 0, errno
	}
	if _, err := backing.CheckpointEvent(name); err != nil {
		return nil, nil, 0, n.fsys.toErrno(err)
	}
	v, err := n.ref.view()
	if err != nil {
		return nil, nil, 0, n.fsys.toErrno(err)
	}
	if _, err := backing.FindCheckpoint(v, name); err == nil {
		return nil, nil, 0, syscall.EEXIST
	}
	if _, err := backing.MarkCheckpoint(n.ref.s, v, name); err != nil {
		return nil, nil, 0, n.fsys.toErrno(err)
	}
	in, errno := n.node(ctx, name, out)
	if errno != 0 {
		return nil, nil, 0, errno
	}
	return in, markHandle{}, fuse.FOPEN_DIRECT_IO, 0
}

// node is the inode of checkpoint name, with its attributes in out.
func (n *checkpointsDir) node(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	doc := checkpointDoc{ref: n.ref, name: name}
	f := &checkpointFile{docFile: docFile{base: base{fsys: n.fsys}, doc: doc.doc}, mark: doc}
	in := child(ctx, &n.Inode, name, f, fileMode, n.ino(name))
	return in, lookupAttr(ctx, in, out)
}

// ino is checkpoint name's inode number: a name that moves keeps it.
func (n *checkpointsDir) ino(name string) uint64 {
	return ino(kindCheckpoint, append(append([]string(nil), n.ids...), name)...)
}
