package fsnode

import (
	"context"
	"slices"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/sessfs/sessfs/backing"
)

// Root is MOUNT/: one folder a session, and the views beside them
// (archive/, trash/, recent/, by-project/, by-tag/, search/, and tmp/ of
// the ephemeral sessions), whose names no
// session can take (backing.ReservedNames). mkdir creates a session, mv
// renames one (or archives it, moved into archive/), rmdir moves it to
// the trash. The views are folders like any other to these: mkdir of one
// is EEXIST, rmdir EBUSY, mv EPERM.
type Root struct {
	base
	refusing
}

var (
	_ = (fs.NodeLookuper)((*Root)(nil))
	_ = (fs.NodeOpendirHandler)((*Root)(nil))
	_ = (fs.NodeGetattrer)((*Root)(nil))
	_ = (fs.NodeMkdirer)((*Root)(nil))
	_ = (fs.NodeRmdirer)((*Root)(nil))
	_ = (fs.NodeRenamer)((*Root)(nil))
	_ = (fs.NodeStatfser)((*Root)(nil))
)

// Views in the root, next to the sessions.
const (
	archiveName   = "archive"
	trashName     = "trash"
	recentName    = "recent"
	byProjectName = "by-project"
	byTagName     = "by-tag"
	searchName    = "search" // when the store keeps an index (backing.Finder)
	tmpName       = "tmp"    // when the mount keeps ephemeral sessions (Options.Tmp)
)

// views are the root's folders that are not sessions, in the order a
// listing shows them, with their inode numbers.
var views = []fuse.DirEntry{
	entry(archiveName, syscall.S_IFDIR, ino(kindArchive)),
	entry(trashName, syscall.S_IFDIR, ino(kindTrash)),
	entry(recentName, syscall.S_IFDIR, ino(kindRecent)),
	entry(byProjectName, syscall.S_IFDIR, byProject.dirIno("")),
	entry(byTagName, syscall.S_IFDIR, byTag.dirIno("")),
}

func isView(name string) bool {
	return name == searchName || name == tmpName || slices.ContainsFunc(views, func(e fuse.DirEntry) bool { return e.Name == name })
}

func (r *Root) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	r.fsys.dirAttr(out, r.fsys.storeTime())
	return 0
}

// OpendirHandle opens a listing of the root (root_listing.go).
func (r *Root) OpendirHandle(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	return newRootListing(r), 0, 0
}

// entries lists the root: the views, then the active sessions, whose
// handles go in sessions when it is not nil. It reads the names folder
// and its links only: listing 10,000 sessions opens none.
func (r *Root) entries(sessions map[string]backing.Session) ([]fuse.DirEntry, syscall.Errno) {
	names, err := r.fsys.st.Names()
	if err != nil {
		return nil, r.fsys.toErrno(err)
	}
	names = slices.DeleteFunc(names, func(name string) bool {
		// A session an older sessfs let take a name since reserved:
		// the view shadows it (sessfs rename gives it another).
		return backing.ReservedNames[name]
	})
	out := slices.Clone(views)
	if _, ok := r.fsys.st.(backing.Finder); ok {
		out = append(out, entry(searchName, syscall.S_IFDIR, ino(kindSearch)))
	}
	if r.fsys.tmp != nil {
		out = append(out, entry(tmpName, syscall.S_IFDIR, ino(kindTmp)))
	}
	return append(out, r.fsys.sessionEntries(names, backing.StateActive, sessions)...), 0
}

func (r *Root) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	var in *fs.Inode
	switch name {
	case archiveName:
		in = child(ctx, &r.Inode, name, &archiveDir{base: base{fsys: r.fsys}}, syscall.S_IFDIR, ino(kindArchive))
	case trashName:
		in = child(ctx, &r.Inode, name, &trashDir{base: base{fsys: r.fsys}}, syscall.S_IFDIR, ino(kindTrash))
	case recentName:
		in = child(ctx, &r.Inode, name, &recentDir{base: base{fsys: r.fsys}}, syscall.S_IFDIR, ino(kindRecent))
	case byProjectName:
		in = r.fsys.groupNode(ctx, &r.Inode, name, byProject, "")
	case byTagName:
		in = r.fsys.groupNode(ctx, &r.Inode, name, byTag, "")
	case searchName:
		f, ok := r.fsys.st.(backing.Finder)
		if !ok {
			return nil, syscall.ENOENT
		}
		in = child(ctx, &r.Inode, name, &searchDir{base: base{fsys: r.fsys}, finder: f}, syscall.S_IFDIR, ino(kindSearch))
	case tmpName:
		if r.fsys.tmp == nil {
			return nil, syscall.ENOENT
		}
		in = child(ctx, &r.Inode, name, &tmpDir{base: base{fsys: r.fsys.tmp}, main: r.fsys}, syscall.S_IFDIR, ino(kindTmp))
	default:
		if backing.ReservedNames[name] { // not a view yet, and never a session
			return nil, syscall.ENOENT
		}
		s, state, err := r.fsys.st.Lookup(name)
		if err != nil {
			return nil, r.fsys.toErrno(err)
		}
		if state != backing.StateActive {
			return nil, syscall.ENOENT
		}
		in = r.fsys.sessionNode(ctx, &r.Inode, name, s)
	}
	return in, lookupAttr(ctx, in, out)
}

func (r *Root) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if errno := r.fsys.writable(ctx); errno != 0 {
		return nil, errno
	}
	if isView(name) {
		return nil, syscall.EEXIST
	}
	s, _, err := r.fsys.st.Create(name, backing.Meta{})
	if err != nil {
		return nil, r.fsys.toErrno(err)
	}
	in := r.fsys.sessionNode(ctx, &r.Inode, name, s)
	return in, lookupAttr(ctx, in, out)
}

// Rmdir moves a session to the trash, although its folder lists files:
// nothing is deleted, and trash/ can bring it back.
func (r *Root) Rmdir(ctx context.Context, name string) syscall.Errno {
	if errno := r.fsys.writable(ctx); errno != 0 {
		return errno
	}
	if isView(name) {
		return syscall.EBUSY
	}
	if _, state, err := r.fsys.st.Lookup(name); err != nil || state != backing.StateActive {
		return syscall.ENOENT
	}
	return r.fsys.toErrno(r.fsys.st.Trash(name))
}

// Rename renames a session, never over another; moved into archive/ it
// is archived.
func (r *Root) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	if errno := r.fsys.writable(ctx); errno != 0 {
		return errno
	}
	if flags&fs.RENAME_EXCHANGE != 0 || isView(name) {
		return syscall.EPERM
	}
	if _, state, err := r.fsys.st.Lookup(name); err != nil || state != backing.StateActive {
		return syscall.ENOENT
	}
	switch newParent.(type) {
	case *Root:
		if isView(newName) {
			return syscall.EEXIST
		}
		return r.fsys.toErrno(r.fsys.st.Rename(name, newName))
	case *archiveDir:
		if newName != name {
			return syscall.EINVAL // archive under the same name, then rename
		}
		return r.fsys.toErrno(r.fsys.st.Archive(name))
	case *trashDir:
		return r.fsys.toErrno(r.fsys.st.Trash(name))
	case *tmpDir:
		// Not EXDEV: mv would copy the folder file by file, which a
		// session folder does not take, and a kept session made
		// ephemeral would be deleted at unmount by a mere mv.
		return syscall.EPERM
	default:
		return syscall.EPERM
	}
}

// sessionNode is the folder of session s; its inode number derives from
// the session's id, so it is the same under any name and across mounts.
func (f *FS) sessionNode(ctx context.Context, parent *fs.Inode, name string, s backing.Session) *fs.Inode {
	return child(ctx, parent, name, &sessionDir{base: base{fsys: f}, s: s}, syscall.S_IFDIR, ino(kindSession, f.inoID(s.ID())))
}

// sessionEntries lists the sessions of the given names in a listing, each
// with its folder's inode number. The number comes from the session's id,
// which only its name link holds: a readlink a name, no session opened. A
// name gone (or moved to another state) since the listing is left out.
// The handles go in keep when it is not nil.
func (f *FS) sessionEntries(names []string, state string, keep map[string]backing.Session) []fuse.DirEntry {
	out := make([]fuse.DirEntry, 0, len(names))
	for _, name := range names {
		s, st, err := f.st.Lookup(name)
		if err != nil || st != state {
			continue
		}
		out = append(out, entry(name, syscall.S_IFDIR, ino(kindSession, f.inoID(s.ID()))))
		if keep != nil {
			keep[name] = s
		}
	}
	return out
}

// storeTime is the last time a session was created, renamed or removed.
func (f *FS) storeTime() time.Time { return f.st.NamesChanged() }

// scratchOf returns the editors' temporaries of session id, which outlive
// any one node of its folder: nil if it has none, unless create. A session
// gets its set with its first temporary, so sessions only looked at hold
// nothing here.
func (f *FS) scratchOf(id string, create bool) *scratchSet {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.scratch[id]
	if s == nil && create {
		s = &scratchSet{}
		f.scratch[id] = s
	}
	return s
}
