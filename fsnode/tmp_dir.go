package fsnode

import (
	"context"
	"errors"
	"log"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/sessfs/sessfs/backing"
)

// tmpDir is MOUNT/tmp/: the ephemeral sessions, kept in the mount's
// memory (Options.Tmp) and gone at unmount. Its sessions are the same
// folders as the root's, served by an FS of their own (base.fsys; main is
// the store's). mkdir creates one, mv within tmp/ renames one, rmdir
// deletes one for good (there is no trash to restore it from), and `mv
// tmp/x x` keeps one: it is copied into the store under its id, with
// every branch and message as stored (backing.Copy), then dropped from
// memory. archive/ and trash/ have no counterpart here: an ephemeral
// session is kept by moving it out, or dropped.
type tmpDir struct {
	base
	refusing
	main *FS
}

var (
	_ = (fs.NodeLookuper)((*tmpDir)(nil))
	_ = (fs.NodeReaddirer)((*tmpDir)(nil))
	_ = (fs.NodeGetattrer)((*tmpDir)(nil))
	_ = (fs.NodeMkdirer)((*tmpDir)(nil))
	_ = (fs.NodeRmdirer)((*tmpDir)(nil))
	_ = (fs.NodeRenamer)((*tmpDir)(nil))
)

func (n *tmpDir) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	n.fsys.dirAttr(out, n.fsys.storeTime())
	return 0
}

func (n *tmpDir) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	names, err := n.fsys.st.Names()
	if err != nil {
		return nil, n.fsys.toErrno(err)
	}
	return fs.NewListDirStream(n.fsys.sessionEntries(names, backing.StateActive, nil)), 0
}

func (n *tmpDir) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	s, state, err := n.fsys.st.Lookup(name)
	if err != nil {
		return nil, n.fsys.toErrno(err)
	}
	if state != backing.StateActive {
		return nil, syscall.ENOENT
	}
	return n.entry(ctx, name, s, out)
}

// entry is the folder of session s, its name never cached by the kernel:
// after `mv tmp/x x` the kernel keeps the folder it knew as tmp/x under
// the name x, and must look x up again to find the store's session there.
func (n *tmpDir) entry(ctx context.Context, name string, s backing.Session, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	in := n.fsys.sessionNode(ctx, &n.Inode, name, s)
	errno := lookupAttr(ctx, in, out)
	out.SetEntryTimeout(0)
	return in, errno
}

func (n *tmpDir) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if errno := n.fsys.writable(ctx); errno != 0 {
		return nil, errno
	}
	s, _, err := n.fsys.st.Create(name, backing.Meta{})
	if err != nil {
		return nil, n.fsys.toErrno(err)
	}
	return n.entry(ctx, name, s, out)
}

// Rmdir deletes an ephemeral session for good, at once.
func (n *tmpDir) Rmdir(ctx context.Context, name string) syscall.Errno {
	if errno := n.fsys.writable(ctx); errno != 0 {
		return errno
	}
	s, err := n.fsys.st.Session(name)
	if err != nil {
		return n.fsys.toErrno(err)
	}
	return n.fsys.toErrno(n.fsys.st.(backing.Remover).Remove(s.ID()))
}

// Rename renames an ephemeral session within tmp/, or keeps it: moved to
// the root, it goes into the store. Anywhere else is EPERM.
func (n *tmpDir) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	if errno := n.fsys.writable(ctx); errno != 0 {
		return errno
	}
	if flags&fs.RENAME_EXCHANGE != 0 {
		return syscall.EPERM
	}
	s, err := n.fsys.st.Session(name)
	if err != nil {
		return n.fsys.toErrno(err)
	}
	switch newParent.(type) {
	case *tmpDir:
		return n.fsys.toErrno(n.fsys.st.Rename(name, newName))
	case *Root:
		if isView(newName) {
			return syscall.EEXIST
		}
		return n.keep(s, newName)
	default:
		return syscall.EPERM
	}
}

// keep copies ephemeral session s into the store as name, under its id,
// then drops it from memory. A name the store has is EEXIST, archived
// sessions' included, and nothing is copied. A copy cut short (the store
// failing midway) leaves in the store what it copied, and the session in
// tmp/: the same mv again completes it (backing.Copy adds what a copy
// lacks, by id).
func (n *tmpDir) keep(s backing.Session, name string) syscall.Errno {
	if err := backing.ValidSessionName(name); err != nil {
		return n.fsys.toErrno(err)
	}
	if there, _, err := n.main.st.Lookup(name); err == nil && there.ID() != s.ID() {
		return syscall.EEXIST
	} else if err != nil && !errors.Is(err, backing.ErrNotFound) {
		return n.main.toErrno(err)
	}
	if _, err := backing.Copy(n.main.st, renamed{Session: s, name: name}); err != nil {
		log.Printf("sessfs: tmp/: keeping session %s as %q: %v", s.ID(), name, err)
		return n.main.toErrno(err)
	}
	return n.fsys.toErrno(n.fsys.st.(backing.Remover).Remove(s.ID()))
}

// renamed is session s as it is to be named in the store it is copied to.
type renamed struct {
	backing.Session
	name string
}

func (r renamed) Meta() (backing.Meta, error) {
	m, err := r.Session.Meta()
	m.Name = r.name
	return m, err
}
