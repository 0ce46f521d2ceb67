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
// they stand. It is read-only: a checkpoint is made by appending its
// event line (`append`, sessfs checkpoint), and history is never cut.
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
	in := child(ctx, &n.Inode, name, &docFile{base: base{fsys: n.fsys}, doc: doc.doc}, fileMode, n.ino(name))
	return in, lookupAttr(ctx, in, out)
}

// ino is checkpoint name's inode number: a name that moves keeps it.
func (n *checkpointsDir) ino(name string) uint64 {
	return ino(kindCheckpoint, append(append([]string(nil), n.ids...), name)...)
}
