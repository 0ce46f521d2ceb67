package fsnode

import (
	"context"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/sessfs/sessfs/backing"
)

// rootListing is an open listing of the mount's root. It keeps the
// handles of the sessions it lists, so that READDIRPLUS (ls -l), which
// looks up each entry right after listing it (go-fuse calls
// FileLookuper.Lookup with the name Readdirent gave last), takes the
// session at hand instead of reading its name link a second time.
type rootListing struct {
	r        *Root
	list     fs.DirStream // nil until the first read or seek
	sessions map[string]backing.Session
}

var (
	_ = (fs.FileReaddirenter)((*rootListing)(nil))
	_ = (fs.FileLookuper)((*rootListing)(nil))
	_ = (fs.FileSeekdirer)((*rootListing)(nil))
	_ = (fs.FileReleasedirer)((*rootListing)(nil))
)

// read lists the root, once.
func (l *rootListing) read() syscall.Errno {
	if l.list != nil {
		return 0
	}
	l.sessions = map[string]backing.Session{}
	entries, errno := l.r.entries(l.sessions)
	if errno != 0 {
		return errno
	}
	l.list = fs.NewListDirStream(entries)
	return 0
}

func (l *rootListing) Readdirent(ctx context.Context) (*fuse.DirEntry, syscall.Errno) {
	if errno := l.read(); errno != 0 {
		return nil, errno
	}
	if !l.list.HasNext() {
		return nil, 0
	}
	e, errno := l.list.Next()
	return &e, errno
}

func (l *rootListing) Seekdir(ctx context.Context, off uint64) syscall.Errno {
	if errno := l.read(); errno != 0 {
		return errno
	}
	if sd, ok := l.list.(fs.FileSeekdirer); ok {
		return sd.Seekdir(ctx, off)
	}
	return syscall.ENOTSUP
}

func (l *rootListing) Releasedir(ctx context.Context, releaseFlags uint32) {
	if l.list != nil {
		l.list.Close()
	}
}

// Lookup answers READDIRPLUS's lookup of an entry just listed: a session
// from its handle, a view as Root.Lookup does.
func (l *rootListing) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	s, ok := l.sessions[name]
	if !ok {
		return l.r.Lookup(ctx, name, out)
	}
	in := l.r.fsys.sessionNode(ctx, &l.r.Inode, name, s)
	return in, lookupAttr(ctx, in, out)
}
