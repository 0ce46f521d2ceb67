package fsnode

import (
	"context"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// scratchLink is an editor's symbolic link in a session folder: emacs
// locks the file it edits with .#meta.json -> user@host.pid. Like a
// scratch file it lives in memory only.
type scratchLink struct {
	base
	ino    uint64
	target string
	mtime  time.Time
}

var (
	_ = (fs.NodeGetattrer)((*scratchLink)(nil))
	_ = (fs.NodeReadlinker)((*scratchLink)(nil))
)

func newScratchLink(fsys *FS, target string) *scratchLink {
	return &scratchLink{base: base{fsys: fsys}, ino: fsys.scratchIno(), target: target, mtime: time.Now()}
}

func (n *scratchLink) stable() fs.StableAttr {
	return fs.StableAttr{Mode: syscall.S_IFLNK, Ino: n.ino}
}

func (n *scratchLink) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	n.fsys.attr(&out.Attr, syscall.S_IFLNK|0o777, int64(len(n.target)), n.mtime)
	return 0
}

func (n *scratchLink) Readlink(ctx context.Context) ([]byte, syscall.Errno) {
	return []byte(n.target), 0
}
