package fsnode

import (
	"context"
	"encoding/json"
	"sync"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/sessfs/sessfs/backing"
)

// editDoc is a document of a session's that a person edits as a file:
// meta.json (meta_doc.go), tasks.json and memory.json (branch_doc.go).
type editDoc interface {
	// read is the document as the file shows it, and when it last
	// changed (the file's mtime): one lookup for both, as a stat needs.
	read() (doc []byte, mtime time.Time, err error)
	// check is the store's check of a whole document, made when a write
	// completes one and again before it is saved.
	check(doc []byte) error
	// save replaces the document, if check accepts it; the document as
	// shown changes nothing, not even a time: an editor saving an
	// unchanged file, or putting its backup back after a refused save.
	save(doc []byte) error
}

// editFile is an editDoc as a file, readable and editable. Writes are
// buffered per open file and replace the document at close or fsync, if
// the store takes it (see editHandle); a write that completes an invalid
// document fails itself.
type editFile struct {
	base
	s   backing.Session
	doc editDoc

	mu      sync.Mutex
	writers map[*editHandle]uint32 // open for writing, by caller pid
}

var (
	_ = (fs.NodeGetattrer)((*editFile)(nil))
	_ = (fs.NodeOpener)((*editFile)(nil))
	_ = (fs.NodeReader)((*editFile)(nil))
	_ = (fs.NodeSetattrer)((*editFile)(nil))
)

// mode is the file's permissions: 0444 in the trash, where it cannot
// change, asked as FS.changeable asks (not the "state" meta.json says,
// which a damaged or hand-edited document may get wrong).
func (n *editFile) mode() uint32 {
	if n.s.Trashed() {
		return 0o444
	}
	return 0o644
}

// complete reports whether doc is one whole JSON value (its strings' UTF-8
// aside): until it is, an editor may still be writing it in pieces.
func complete(doc []byte) bool { return json.Valid(doc) }

func (n *editFile) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	if h, ok := fh.(*editHandle); ok {
		return h.getattr(out)
	}
	doc, mtime, err := n.doc.read()
	if err != nil {
		return n.fsys.toErrno(err)
	}
	n.fsys.attr(&out.Attr, syscall.S_IFREG|n.mode(), int64(len(doc)), mtime)
	return 0
}

// Open snapshots the document, so a reader sees one version whole; a
// writer starts from it, or from nothing with O_TRUNC. Opening for writing
// is refused at once on a read-only mount and in the trash. Only a
// writer's copy is an edit charged to the mount's budget: a reader's
// holds a document the store already bounds, so `cat meta.json` works
// however much the open files buffer.
func (n *editFile) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if isWrite(flags) {
		if errno := n.fsys.changeable(ctx, n.s); errno != 0 {
			return nil, 0, errno
		}
	}
	doc, _, err := n.doc.read()
	if err != nil {
		return nil, 0, n.fsys.toErrno(err)
	}
	h := newEditHandle(n, n.mode())
	if !isWrite(flags) {
		h.buf.hold(doc)
		return h, fuse.FOPEN_DIRECT_IO, 0
	}
	if flags&syscall.O_TRUNC != 0 {
		h.dirty = true
	} else if err := h.buf.set(doc); err != nil {
		return nil, 0, n.fsys.toErrno(err)
	}
	caller, _ := fuse.FromContext(ctx)
	n.mu.Lock()
	if n.writers == nil {
		n.writers = map[*editHandle]uint32{}
	}
	n.writers[h] = caller.Pid
	n.mu.Unlock()
	return h, fuse.FOPEN_DIRECT_IO, 0
}

// truncateOpen handles open(O_TRUNC): go-fuse does not negotiate atomic
// O_TRUNC, so the kernel opens without the flag and then sends a size-0
// Setattr that names no file. It belongs to the handle the same process
// just opened for writing and has not written to yet.
func (n *editFile) truncateOpen(pid uint32) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	found := false
	for h, p := range n.writers {
		if p == pid && h.fresh() {
			h.truncate(0)
			found = true
		}
	}
	return found
}

func (n *editFile) released(h *editHandle) {
	n.mu.Lock()
	delete(n.writers, h)
	n.mu.Unlock()
}

func (n *editFile) Read(ctx context.Context, fh fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	if h, ok := fh.(*editHandle); ok {
		return h.Read(ctx, dest, off)
	}
	doc, _, err := n.doc.read()
	if err != nil {
		return nil, n.fsys.toErrno(err)
	}
	return fuse.ReadResultData(slice(doc, off, len(dest))), 0
}

// Setattr takes a size change through an open file (O_TRUNC, ftruncate),
// and times (touch), which change nothing: the file's mtime is when the
// store last replaced the document. chmod and chown are refused.
func (n *editFile) Setattr(ctx context.Context, fh fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if errno := n.fsys.changeable(ctx, n.s); errno != 0 {
		return errno
	}
	if onlyTimes(in) {
		return n.Getattr(ctx, fh, out)
	}
	sz, ok := onlySize(in)
	if !ok {
		return syscall.EPERM
	}
	h, isHandle := fh.(*editHandle)
	if !isHandle {
		caller, _ := fuse.FromContext(ctx)
		if sz == 0 && n.truncateOpen(caller.Pid) {
			return n.Getattr(ctx, nil, out)
		}
		// truncate(2) by path has no open file to buffer in; the only
		// size it can set without breaking the document is its own.
		doc, _, err := n.doc.read()
		if err != nil {
			return n.fsys.toErrno(err)
		}
		if sz != uint64(len(doc)) {
			return syscall.EINVAL
		}
		return n.Getattr(ctx, nil, out)
	}
	if errno := h.truncate(int64(sz)); errno != 0 {
		return errno
	}
	return h.getattr(out)
}

// slice returns up to n bytes of b from off.
func slice(b []byte, off int64, n int) []byte {
	if off >= int64(len(b)) {
		return nil
	}
	return b[off:min(int64(len(b)), off+int64(n))]
}
