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
	dirListing
	r        *Root
	sessions map[string]backing.Session // under dirListing.mu
}

var (
	_ = (fs.FileReaddirenter)((*rootListing)(nil))
	_ = (fs.FileLookuper)((*rootListing)(nil))
	_ = (fs.FileSeekdirer)((*rootListing)(nil))
	_ = (fs.FileReleasedirer)((*rootListing)(nil))
)

func newRootListing(r *Root) *rootListing {
	l := &rootListing{r: r}
	l.list = func() ([]fuse.DirEntry, syscall.Errno) {
		l.sessions = map[string]backing.Session{}
		return r.entries(l.sessions)
	}
	return l
}

// Lookup answers READDIRPLUS's lookup of an entry just listed: a session
// from its handle, a view as Root.Lookup does.
func (l *rootListing) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	l.mu.Lock()
	s, ok := l.sessions[name]
	l.mu.Unlock()
	if !ok {
		return l.r.Lookup(ctx, name, out)
	}
	in := l.r.fsys.sessionNode(ctx, &l.r.Inode, name, s)
	return in, lookupAttr(ctx, in, out)
}
