package fsnode

import (
	"context"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// branchDir is MOUNT/<session>/branches/<name>/: the branch's files,
// info.json, usage.json and since-fork.jsonl.
type branchDir struct {
	base
	refusing
	ref branchRef
}

var (
	_ = (fs.NodeLookuper)((*branchDir)(nil))
	_ = (fs.NodeReaddirer)((*branchDir)(nil))
	_ = (fs.NodeGetattrer)((*branchDir)(nil))
)

func (n *branchDir) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	v, err := n.ref.view()
	if err != nil {
		return n.fsys.toErrno(err)
	}
	n.fsys.dirAttr(out, v.ModTime())
	return 0
}

func (n *branchDir) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	ids := []string{n.ref.s.ID(), n.ref.id}
	list := append([]fuse.DirEntry{entry("info.json", fileMode, ino(kindInfo, ids...))}, branchEntries(ids...)...)
	list = append(list, entry("usage.json", fileMode, ino(kindUsage, ids...)))
	list = append(list, entry("since-fork.jsonl", fileMode, ino(kindSinceFork, ids...)))
	return fs.NewListDirStream(list), 0
}

func (n *branchDir) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	ids := []string{n.ref.s.ID(), n.ref.id}
	var in *fs.Inode
	switch name {
	case "info.json":
		in = child(ctx, &n.Inode, name, &docFile{base: base{fsys: n.fsys}, doc: infoDoc{ref: n.ref}.doc}, fileMode, ino(kindInfo, ids...))
	case "usage.json": // the branch's view
		in = usageChild(ctx, n.fsys, &n.Inode, &usageDoc{s: n.ref.s, scope: usageBranch, ref: n.ref}, ids...)
	case "since-fork.jsonl": // only below branches/: at the top the default branch has no fork point
		in = child(ctx, &n.Inode, name, newSinceForkFile(n.fsys, n.ref), fileMode, ino(kindSinceFork, ids...))
	default:
		in = branchFile(ctx, &n.Inode, n.fsys, n.ref, name, ids...)
	}
	if in == nil {
		return nil, syscall.ENOENT
	}
	return in, lookupAttr(ctx, in, out)
}
