package fsnode

import (
	"context"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// docFile is a small read-only document made afresh at each stat and
// each read (info.json, usage.json, branches.txt), so its size is exact
// and the kernel caches none of it (direct I/O). What it holds, and its
// mtime, come from doc.
type docFile struct {
	base
	doc func() ([]byte, time.Time, error)
}

var (
	_ = (fs.NodeGetattrer)((*docFile)(nil))
	_ = (fs.NodeOpener)((*docFile)(nil))
	_ = (fs.NodeReader)((*docFile)(nil))
	_ = (fs.NodeSetattrer)((*docFile)(nil))
)

func (n *docFile) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	doc, mtime, err := n.doc()
	if err != nil {
		return n.fsys.toErrno(err)
	}
	n.fsys.attr(&out.Attr, fileMode|0o444, int64(len(doc)), mtime)
	return 0
}

func (n *docFile) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if isWrite(flags) {
		return nil, 0, syscall.EACCES
	}
	return nil, fuse.FOPEN_DIRECT_IO, 0
}

func (n *docFile) Read(ctx context.Context, fh fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	doc, _, err := n.doc()
	if err != nil {
		return nil, n.fsys.toErrno(err)
	}
	return fuse.ReadResultData(slice(doc, off, len(dest))), 0
}

func (n *docFile) Setattr(ctx context.Context, fh fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	return syscall.EPERM
}
