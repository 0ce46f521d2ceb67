package fsnode

import (
	"context"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// viewLink is a symbolic link of a view over many sessions (search/): a
// relative target in the mount, and the time of what it points at.
type viewLink struct {
	base
	target string
	mtime  time.Time
}

var (
	_ = (fs.NodeGetattrer)((*viewLink)(nil))
	_ = (fs.NodeReadlinker)((*viewLink)(nil))
)

func (n *viewLink) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	n.fsys.attr(&out.Attr, syscall.S_IFLNK|0o777, int64(len(n.target)), n.mtime)
	out.SetTimeout(attrTimeout)
	return 0
}

func (n *viewLink) Readlink(ctx context.Context) ([]byte, syscall.Errno) {
	return []byte(n.target), 0
}
