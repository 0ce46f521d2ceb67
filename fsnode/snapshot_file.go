package fsnode

import (
	"context"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/sessfs/sessfs/backing"
)

// snapshotFile is turns/<n>/files/<path>: the content a snapshot of turn
// n recorded of the file at path, read-only, its size the recorded one
// (known without reading the content), its mode the file's without
// write bits, its time the snapshot's. An open reads the content once,
// for the handle's reads.
type snapshotFile struct {
	base
	files *turnFiles
	path  string
}

var (
	_ = (fs.NodeGetattrer)((*snapshotFile)(nil))
	_ = (fs.NodeOpener)((*snapshotFile)(nil))
	_ = (fs.NodeReader)((*snapshotFile)(nil))
	_ = (fs.NodeSetattrer)((*snapshotFile)(nil))
)

// snapshotHandle holds the content an open read.
type snapshotHandle struct{ content []byte }

func (n *snapshotFile) snapshot() (backing.Snapshot, backing.View, error) {
	s, file, _, v, err := n.files.find(n.path)
	if err == nil && !file {
		err = backing.ErrNotFound
	}
	return s, v, err
}

func (n *snapshotFile) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	s, v, err := n.snapshot()
	if err != nil {
		return n.fsys.toErrno(err)
	}
	perm := s.Mode & 0o555
	if perm == 0 {
		perm = 0o444
	}
	n.fsys.attr(&out.Attr, fileMode|perm, s.Size, snapTime(v, s))
	return 0
}

func (n *snapshotFile) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if isWrite(flags) {
		return nil, 0, syscall.EACCES
	}
	s, v, err := n.snapshot()
	if err != nil {
		return nil, 0, n.fsys.toErrno(err)
	}
	c, err := backing.SnapshotContent(v, s)
	if err != nil {
		return nil, 0, n.fsys.toErrno(err)
	}
	return &snapshotHandle{content: c}, 0, 0
}

func (n *snapshotFile) Read(ctx context.Context, fh fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	h, ok := fh.(*snapshotHandle)
	if !ok {
		return nil, syscall.EBADF
	}
	return fuse.ReadResultData(slice(h.content, off, len(dest))), 0
}

func (n *snapshotFile) Setattr(ctx context.Context, fh fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	return syscall.EPERM
}
