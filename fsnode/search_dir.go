package fsnode

import (
	"context"
	"strings"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/sessfs/sessfs/backing"
)

// searchDir is MOUNT/search/: it lists nothing, and any name looked up in
// it is a query, whose folder lists the hits (queryDir). `ls
// "MOUNT/search/group commit"` searches; a name that starts with '.' is
// not a query (shells and prompts look up .git and the like everywhere).
type searchDir struct {
	base
	refusing
	finder backing.Finder
}

var (
	_ = (fs.NodeLookuper)((*searchDir)(nil))
	_ = (fs.NodeReaddirer)((*searchDir)(nil))
	_ = (fs.NodeGetattrer)((*searchDir)(nil))
)

func (n *searchDir) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	n.fsys.dirAttr(out, n.fsys.storeTime())
	return 0
}

func (n *searchDir) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	return fs.NewListDirStream(nil), 0
}

func (n *searchDir) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if strings.HasPrefix(name, ".") {
		return nil, syscall.ENOENT
	}
	if _, err := backing.ParseQuery(name); err != nil {
		return nil, syscall.EINVAL
	}
	q := &queryDir{base: base{fsys: n.fsys}, finder: n.finder, query: name}
	in := child(ctx, &n.Inode, name, q, syscall.S_IFDIR, ino(kindQuery, name))
	return in, lookupAttr(ctx, in, out)
}
