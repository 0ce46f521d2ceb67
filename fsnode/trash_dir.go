package fsnode

import (
	"context"
	"strings"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// trashDir is MOUNT/trash/: the sessions in the trash, named
// <name>~<id> since several trashed sessions may share a name. `mv
// MOUNT/trash/<entry> MOUNT/<name>` restores one under that name.
type trashDir struct {
	base
	refusing
}

var (
	_ = (fs.NodeLookuper)((*trashDir)(nil))
	_ = (fs.NodeReaddirer)((*trashDir)(nil))
	_ = (fs.NodeGetattrer)((*trashDir)(nil))
	_ = (fs.NodeRenamer)((*trashDir)(nil))
)

const trashSep = "~"

func (n *trashDir) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	n.fsys.dirAttr(out, n.fsys.storeTime())
	return 0
}

func (n *trashDir) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	ids, err := n.fsys.st.TrashedIDs()
	if err != nil {
		return nil, n.fsys.toErrno(err)
	}
	var out []fuse.DirEntry
	for _, id := range ids {
		s, err := n.fsys.st.SessionByID(id)
		if err != nil {
			continue
		}
		m, err := s.Meta()
		if err != nil {
			continue
		}
		out = append(out, entry(m.Name+trashSep+id, syscall.S_IFDIR, ino(kindSession, id)))
	}
	return fs.NewListDirStream(out), 0
}

// trashedID returns the id in a trash entry's name, if it is in the trash.
func (n *trashDir) trashedID(entry string) (string, bool) {
	i := strings.LastIndex(entry, trashSep)
	if i < 0 {
		return "", false
	}
	id := entry[i+len(trashSep):]
	ids, err := n.fsys.st.TrashedIDs()
	if err != nil {
		return "", false
	}
	for _, t := range ids {
		if t == id {
			return id, true
		}
	}
	return "", false
}

func (n *trashDir) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	id, ok := n.trashedID(name)
	if !ok {
		return nil, syscall.ENOENT
	}
	s, err := n.fsys.st.SessionByID(id)
	if err != nil {
		return nil, n.fsys.toErrno(err)
	}
	in := n.fsys.sessionNode(ctx, &n.Inode, name, s)
	return in, lookupAttr(ctx, in, out)
}

// Rename restores a session: moved to the root, under the name given.
func (n *trashDir) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	if errno := n.fsys.writable(ctx); errno != 0 {
		return errno
	}
	if _, ok := newParent.(*Root); !ok || flags&fs.RENAME_EXCHANGE != 0 {
		return syscall.EPERM
	}
	id, ok := n.trashedID(name)
	if !ok {
		return syscall.ENOENT
	}
	_, err := n.fsys.st.Restore(id, newName)
	return n.fsys.toErrno(err)
}
