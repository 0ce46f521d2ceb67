package fsnode

import (
	"context"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/sessfs/sessfs/backing"
)

// sessionDir is MOUNT/<session>/: meta.json, the default branch's files
// (tasks.json and memory.json among them), the session's usage.json,
// branches.txt (the fork tree), branches/ and turns/, and the temporaries
// editors make beside the files they edit (scratch_dir.go).
type sessionDir struct {
	base
	refusing
	s backing.Session
}

var (
	_ = (fs.NodeLookuper)((*sessionDir)(nil))
	_ = (fs.NodeReaddirer)((*sessionDir)(nil))
	_ = (fs.NodeGetattrer)((*sessionDir)(nil))
	_ = (fs.NodeStatfser)((*sessionDir)(nil))
	_ = (fs.NodeOnForgetter)((*sessionDir)(nil))
)

// OnForget drops the folder from those the kernel is left to remember
// (remembered.go).
func (n *sessionDir) OnForget() { n.fsys.forgotten(n.StableAttr().Ino) }

func (n *sessionDir) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	// The last append to any branch: a stat per log, no message read, so
	// ls -l of 10,000 sessions reads no log.
	t, err := n.s.LastAppend()
	if err != nil {
		return n.fsys.toErrno(err)
	}
	n.fsys.dirAttr(out, t)
	return 0
}

func (n *sessionDir) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	id := n.fsys.inoID(n.s.ID())
	list := []fuse.DirEntry{entry("meta.json", fileMode, ino(kindMeta, id))}
	list = append(list, branchEntries(id)...)
	list = append(list, entry("usage.json", fileMode, ino(kindUsage, id)))
	list = append(list, entry("branches", syscall.S_IFDIR, ino(kindBranches, id)))
	list = append(list, entry("branches.txt", fileMode, ino(kindBranchTree, id)))
	list = append(list, n.temps(false).entries()...)
	return fs.NewListDirStream(list), 0
}

func (n *sessionDir) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	n.fsys.remember(&n.Inode)
	var in *fs.Inode
	id := n.fsys.inoID(n.s.ID())
	switch name {
	case "meta.json":
		in = child(ctx, &n.Inode, name, &editFile{base: base{fsys: n.fsys}, s: n.s, doc: metaDoc{n.s}}, fileMode, ino(kindMeta, id))
	case "usage.json": // the session's: every branch
		in = usageChild(ctx, n.fsys, &n.Inode, &usageDoc{s: n.s, scope: usageSession}, id)
	case "branches.txt":
		doc := func() ([]byte, time.Time, error) { return BranchTree(n.s) }
		in = child(ctx, &n.Inode, name, &docFile{base: base{fsys: n.fsys}, doc: doc}, fileMode, ino(kindBranchTree, id))
	case "branches":
		in = child(ctx, &n.Inode, name, &branchesDir{base: base{fsys: n.fsys}, s: n.s}, syscall.S_IFDIR, ino(kindBranches, id))
	default:
		if f := n.temps(false).get(name); f != nil {
			a := f.stable()
			in = child(ctx, &n.Inode, name, f, a.Mode, a.Ino)
			break
		}
		in = branchFile(ctx, &n.Inode, n.fsys, branchRef{s: n.s}, name, id)
	}
	if in == nil {
		return nil, syscall.ENOENT
	}
	return in, lookupAttr(ctx, in, out)
}
