package fsnode

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/sessfs/sessfs/backing"
)

// recentDir is MOUNT/recent/: every active session, newest activity
// first in plain ls order. Each entry is a link to the session's folder
// (sessionLink), named by its rank, zero-padded to the width of the count
// so that ls's sort keeps the order, and the session's name: "07 fix-ci"
// -> ../fix-ci. A listing is one call of the catalog (backing.CatalogOf),
// made when an open of the folder is first read (viewHandle): nothing at
// mount time, nothing kept after.
//
// A rank is only a position in the listing it came from: a lookup goes by
// the name after it, so a name listed before an append or a rename moved
// the session still leads to it, while the session is active.
type recentDir struct {
	base
	refusing
}

var (
	_ = (fs.NodeLookuper)((*recentDir)(nil))
	_ = (fs.NodeOpendirHandler)((*recentDir)(nil))
	_ = (fs.NodeReaddirer)((*recentDir)(nil))
	_ = (fs.NodeGetattrer)((*recentDir)(nil))
)

func (n *recentDir) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	n.fsys.dirAttr(out, n.fsys.storeTime())
	return 0
}

func (n *recentDir) listing() ([]viewEntry, syscall.Errno) {
	es, err := backing.CatalogOf(n.fsys.st, backing.CatalogQuery{})
	if err != nil {
		return nil, n.fsys.toErrno(err)
	}
	es = slices.DeleteFunc(es, func(e backing.Entry) bool { return e.Name == "" }) // unreadable
	width := len(strconv.Itoa(len(es)))
	out := make([]viewEntry, len(es))
	for i, e := range es {
		name := fmt.Sprintf("%0*d %s", width, i+1, e.Name)
		out[i] = viewEntry{DirEntry: entry(name, syscall.S_IFLNK, ino(kindRecentLink, e.ID, e.Name)),
			id: e.ID, target: linkTarget(e.Name, 1), mtime: e.LastActivity}
	}
	return out, 0
}

func (n *recentDir) OpendirHandle(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	return n.fsys.openView(&n.Inode, n.listing)
}

func (n *recentDir) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	return viewStream(n.listing())
}

func (n *recentDir) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	session, ok := unranked(name)
	if !ok {
		return nil, syscall.ENOENT
	}
	s, state, err := n.fsys.st.Lookup(session)
	if err != nil {
		return nil, n.fsys.toErrno(err)
	}
	if state != backing.StateActive {
		return nil, syscall.ENOENT
	}
	in := n.fsys.linkNode(ctx, &n.Inode, name, s.ID(), linkTarget(session, 1), ino(kindRecentLink, s.ID(), session))
	return in, lookupAttr(ctx, in, out)
}

// unranked is the session name in an entry of recent/: what follows its
// rank (digits, then one space).
func unranked(entry string) (string, bool) {
	rank, session, ok := strings.Cut(entry, " ")
	if !ok || rank == "" || session == "" || strings.Trim(rank, "0123456789") != "" {
		return "", false
	}
	return session, true
}
