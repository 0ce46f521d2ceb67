package fsnode

import (
	"context"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// sessionLink is an entry of the views recent/, by-project/ and by-tag/:
// a symbolic link to a session's folder by a relative path
// (../<name>, ../../<name>, …), so that it leads there in any mount at
// any mount point, and cd, ls, cat and find -L go through it. Its mtime
// is the session's last activity, so ls -lt of a view sorts as recent/
// does.
//
// A node is one name of one session at one place: its inode number
// hashes the view, the folder, the session's id and name, so the target
// it was made with stays right for it, and a rename of the session makes
// another node. It keeps the session's id alone, and asks the store for
// the time at each stat: a listing of many links opens no session.
type sessionLink struct {
	base
	id     string
	target string
}

var (
	_ = (fs.NodeGetattrer)((*sessionLink)(nil))
	_ = (fs.NodeReadlinker)((*sessionLink)(nil))
	_ = (fs.NodeSetattrer)((*sessionLink)(nil))
)

// linkTarget is the target of a link to session name from a folder depth
// levels below the mount's root (recent/: 1).
func linkTarget(name string, depth int) string {
	target := ""
	for range depth {
		target += "../"
	}
	return target + name
}

// linkNode is the link under parent as name to session id.
func (f *FS) linkNode(ctx context.Context, parent *fs.Inode, name, id, target string, ino uint64) *fs.Inode {
	return child(ctx, parent, name, &sessionLink{base: base{fsys: f}, id: id, target: target}, syscall.S_IFLNK, ino)
}

// linkAttr fills a link's attributes.
func (f *FS) linkAttr(out *fuse.Attr, target string, mtime time.Time) {
	f.attr(out, syscall.S_IFLNK|0o777, int64(len(target)), mtime)
}

func (n *sessionLink) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	s, err := n.fsys.st.SessionByID(n.id)
	if err != nil {
		return n.fsys.toErrno(err)
	}
	t, err := s.LastAppend()
	if err != nil {
		return n.fsys.toErrno(err)
	}
	n.fsys.linkAttr(&out.Attr, n.target, t)
	out.SetTimeout(attrTimeout)
	return 0
}

func (n *sessionLink) Readlink(ctx context.Context) ([]byte, syscall.Errno) {
	return []byte(n.target), 0
}

// Setattr refuses touch -h and the like: a view is read-only.
func (n *sessionLink) Setattr(ctx context.Context, fh fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if errno := n.fsys.writable(ctx); errno != 0 {
		return errno
	}
	return syscall.EPERM
}
