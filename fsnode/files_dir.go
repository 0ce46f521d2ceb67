package fsnode

import (
	"context"
	"path"
	"sort"
	"strings"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// filesDir is turns/<n>/files/ and each folder below it: the snapshots of
// turn n (turnFiles) of files that existed, each under its original
// absolute path (files/home/u/p/a.go is /home/u/p/a.go as it was before
// the turn edited it). A file that did not exist has no file here;
// files.json lists it. Nothing in it can be written.
type filesDir struct {
	base
	refusing
	files *turnFiles
	dir   string   // the absolute path it stands for: "/" for files/
	ids   []string // the turn's path ids, for inode numbers
}

var (
	_ = (fs.NodeLookuper)((*filesDir)(nil))
	_ = (fs.NodeReaddirer)((*filesDir)(nil))
	_ = (fs.NodeGetattrer)((*filesDir)(nil))
)

func (n *filesDir) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	v, _, err := n.files.get()
	if err != nil {
		return n.fsys.toErrno(err)
	}
	// Not cached: gains a file with every snapshot, as checkpoints/.
	n.fsys.attr(&out.Attr, dirMode, 0, v.ModTime())
	return 0
}

func (n *filesDir) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	_, snaps, err := n.files.get()
	if err != nil {
		return nil, n.fsys.toErrno(err)
	}
	prefix := strings.TrimSuffix(n.dir, "/") + "/"
	kinds := map[string]uint32{} // name → S_IFDIR or S_IFREG; a folder wins
	for _, s := range snaps {
		rest, ok := strings.CutPrefix(s.Path, prefix)
		if !s.Exists || !ok {
			continue
		}
		name, below, deeper := strings.Cut(rest, "/")
		if deeper && below != "" {
			kinds[name] = syscall.S_IFDIR
		} else if kinds[name] == 0 {
			kinds[name] = fileMode
		}
	}
	names := make([]string, 0, len(kinds))
	for name := range kinds {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make([]fuse.DirEntry, len(names))
	for i, name := range names {
		out[i] = entry(name, kinds[name], n.ino(kinds[name], path.Join(n.dir, name)))
	}
	return fs.NewListDirStream(out), 0
}

func (n *filesDir) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	p := path.Join(n.dir, name)
	_, file, dir, _, err := n.files.find(p)
	if err != nil {
		return nil, n.fsys.toErrno(err)
	}
	var in *fs.Inode
	switch {
	case dir:
		in = child(ctx, &n.Inode, name, &filesDir{base: base{fsys: n.fsys}, files: n.files, dir: p, ids: n.ids}, syscall.S_IFDIR, n.ino(syscall.S_IFDIR, p))
	case file:
		in = child(ctx, &n.Inode, name, &snapshotFile{base: base{fsys: n.fsys}, files: n.files, path: p}, fileMode, n.ino(fileMode, p))
	default:
		return nil, syscall.ENOENT
	}
	return in, lookupAttr(ctx, in, out)
}

// ino is the inode number of the folder or file at absolute path p.
func (n *filesDir) ino(mode uint32, p string) uint64 {
	kind := kindTurnFile
	if mode == syscall.S_IFDIR {
		kind = kindTurnFiles
	}
	return ino(kind, append(append([]string(nil), n.ids...), p)...)
}
