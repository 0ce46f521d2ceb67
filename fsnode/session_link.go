package fsnode

import (
	"context"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/sessfs/sessfs/backing"
)

// sessionLink is an entry of the views recent/, by-project/ and by-tag/:
// a symbolic link to a session's folder by a relative path
// (../<name>, ../../<name>, …), so that it leads there in any mount at
// any mount point, and cd, ls, cat and find -L go through it. Its mtime
// is the session's last activity, so ls -lt of a view sorts as recent/
// does.
//
// A node is one name of one session at one place: its inode number
// hashes the view, the folder, the session's id and name (sessionLinkIno),
// so the target it was made with stays right for it, and a rename of the
// session makes another node.
type sessionLink struct {
	base
	s      backing.Session
	target string
}

var (
	_ = (fs.NodeGetattrer)((*sessionLink)(nil))
	_ = (fs.NodeReadlinker)((*sessionLink)(nil))
	_ = (fs.NodeSetattrer)((*sessionLink)(nil))
)

// linkTo makes the link, under parent as name, to session s named
// sessionName, depth folders below the mount's root (recent/: 1).
func (f *FS) linkTo(ctx context.Context, parent *fs.Inode, name string, s backing.Session, sessionName string, depth int, ino uint64) *fs.Inode {
	target := ""
	for range depth {
		target += "../"
	}
	n := &sessionLink{base: base{fsys: f}, s: s, target: target + sessionName}
	return child(ctx, parent, name, n, syscall.S_IFLNK, ino)
}

func (n *sessionLink) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	t, err := n.s.LastAppend()
	if err != nil {
		return n.fsys.toErrno(err)
	}
	n.fsys.attr(&out.Attr, syscall.S_IFLNK|0o777, int64(len(n.target)), t)
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
