package fsnode

import (
	"context"
	"sync"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
)

// followHandle is an open growing rendering: while it is open, the mount
// follows its session in the change feed (live.go), so that a reader such
// as tail -f hears of other writers' appends at once. It carries nothing
// else: reads go to the node, which serves the file as it is now.
type followHandle struct {
	fsys *FS
	sid  string
	once sync.Once
}

var _ = (fs.FileReleaser)((*followHandle)(nil))

func (h *followHandle) Release(ctx context.Context) syscall.Errno {
	h.once.Do(func() { h.fsys.unfollow(h.sid) })
	return 0
}
