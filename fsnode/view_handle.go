package fsnode

import (
	"context"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// viewEntry is one entry of a view's listing (recent/, by-project/,
// by-tag/) with what the catalog said of it, enough to make its node and
// its attributes without asking the store again: a link's session, target
// and time, or a folder's group.
type viewEntry struct {
	fuse.DirEntry
	id     string    // a link's session id
	target string    // a link's target
	mtime  time.Time // a link's session's last activity
	group  *grouping // a folder's view, and its group path
	path   string
}

// viewHandle is an open folder of a view. Its listing is made at the
// first read, from one catalog call (the node's list), and answers the
// lookups the kernel's READDIRPLUS makes of each entry it lists: ls of a
// view of 10,000 links, or of 100 project folders, costs that one call,
// not one store call (or, for a folder, one catalog call) an entry. A
// lookup of a name outside a listing asks the store (the node's Lookup).
// Nothing outlives the handle: the next open lists the store anew.
type viewHandle struct {
	dirListing
	fsys    *FS
	parent  *fs.Inode
	entries map[string]viewEntry // under dirListing.mu
}

var (
	_ = (fs.FileReaddirenter)((*viewHandle)(nil))
	_ = (fs.FileSeekdirer)((*viewHandle)(nil))
	_ = (fs.FileLookuper)((*viewHandle)(nil))
	_ = (fs.FileReleasedirer)((*viewHandle)(nil))
)

// openView opens a view's folder: what its node's OpendirHandle returns.
func (f *FS) openView(parent *fs.Inode, list func() ([]viewEntry, syscall.Errno)) (fs.FileHandle, uint32, syscall.Errno) {
	h := &viewHandle{fsys: f, parent: parent}
	h.list = func() ([]fuse.DirEntry, syscall.Errno) {
		es, errno := list()
		if errno != 0 {
			return nil, errno
		}
		h.entries = make(map[string]viewEntry, len(es))
		out := make([]fuse.DirEntry, len(es))
		for i, e := range es {
			h.entries[e.Name] = e
			out[i] = e.DirEntry
		}
		return out, 0
	}
	return h, 0, 0
}

// Lookup answers READDIRPLUS from the listing.
func (h *viewHandle) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	h.mu.Lock()
	e, ok := h.entries[name]
	h.mu.Unlock()
	if !ok {
		return nil, syscall.ENOENT
	}
	var in *fs.Inode
	if e.Mode&syscall.S_IFMT == syscall.S_IFLNK {
		in = h.fsys.linkNode(ctx, h.parent, name, e.id, e.target, e.Ino)
		h.fsys.linkAttr(&out.Attr, e.target, e.mtime)
	} else {
		in = h.fsys.groupNode(ctx, h.parent, name, e.group, e.path)
		h.fsys.attr(&out.Attr, dirMode, 0, h.fsys.storeTime())
	}
	out.SetAttrTimeout(attrTimeout)
	out.SetEntryTimeout(entryTimeout)
	return in, 0
}

// viewStream is a listing as a DirStream, for a view node's Readdir,
// which go-fuse calls when the folder is not opened through
// OpendirHandle (the in-process tests do).
func viewStream(es []viewEntry, errno syscall.Errno) (fs.DirStream, syscall.Errno) {
	if errno != 0 {
		return nil, errno
	}
	list := make([]fuse.DirEntry, len(es))
	for i, e := range es {
		list[i] = e.DirEntry
	}
	return fs.NewListDirStream(list), 0
}
