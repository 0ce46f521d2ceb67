package fsnode

import (
	"context"
	"sync"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// dirListing is the listing of an open folder that answers READDIRPLUS's
// lookups itself (go-fuse's FileLookuper: rootListing, viewHandle): made
// at the first read or seek, by list, which also keeps what the lookups
// take, and kept for the handle's life.
type dirListing struct {
	list func() ([]fuse.DirEntry, syscall.Errno)

	mu sync.Mutex   // over ds and what list keeps
	ds fs.DirStream // nil until the first read
}

// listed makes the listing once. The caller holds l.mu.
func (l *dirListing) listed() syscall.Errno {
	if l.ds != nil {
		return 0
	}
	es, errno := l.list()
	if errno != 0 {
		return errno
	}
	l.ds = fs.NewListDirStream(es)
	return 0
}

func (l *dirListing) Readdirent(ctx context.Context) (*fuse.DirEntry, syscall.Errno) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if errno := l.listed(); errno != 0 {
		return nil, errno
	}
	if !l.ds.HasNext() {
		return nil, 0
	}
	e, errno := l.ds.Next()
	return &e, errno
}

func (l *dirListing) Seekdir(ctx context.Context, off uint64) syscall.Errno {
	l.mu.Lock()
	defer l.mu.Unlock()
	if errno := l.listed(); errno != 0 {
		return errno
	}
	if sd, ok := l.ds.(fs.FileSeekdirer); ok {
		return sd.Seekdir(ctx, off)
	}
	return syscall.ENOTSUP
}

func (l *dirListing) Releasedir(ctx context.Context, releaseFlags uint32) {}
