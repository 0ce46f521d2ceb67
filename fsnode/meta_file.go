package fsnode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/sessfs/sessfs/backing"
)

// metaFile is a session's meta.json: the document, readable and editable.
// Writes are buffered per open file and replace the document at close or
// fsync, if it is a JSON object with the session's id (see metaHandle); a
// write that completes an invalid document fails itself.
type metaFile struct {
	base
	s backing.Session

	mu      sync.Mutex
	writers map[*metaHandle]uint32 // open for writing, by caller pid
}

var (
	_ = (fs.NodeGetattrer)((*metaFile)(nil))
	_ = (fs.NodeOpener)((*metaFile)(nil))
	_ = (fs.NodeReader)((*metaFile)(nil))
	_ = (fs.NodeSetattrer)((*metaFile)(nil))
)

// doc is the document as meta.json shows it. One the store cannot parse
// is shown as its bytes, so a person can see it and mend it: a valid
// document saved over it replaces it (backing.EditMeta), as fsck --repair
// would.
func (n *metaFile) doc() ([]byte, error) {
	m, err := n.s.Meta()
	if errors.Is(err, backing.ErrInvalid) {
		return n.s.MetaBytes()
	}
	if err != nil {
		return nil, err
	}
	return backing.EncodeMeta(m)
}

// mode is meta.json's permissions: 0444 in the trash, where it cannot
// change, asked as FS.changeable asks (not the "state" meta.json says,
// which a damaged or hand-edited document may get wrong).
func (n *metaFile) mode() uint32 {
	if n.s.Trashed() {
		return 0o444
	}
	return 0o644
}

// checkMeta is the store's check of an edited meta.json (Session.CheckMeta),
// made when a write completes the document and again before the store
// replaces it. (backing.EditMeta keeps the fields the store owns whatever
// the document says.)
func checkMeta(s backing.Session, doc []byte) error {
	_, err := s.CheckMeta(doc)
	return err
}

// editMeta replaces s's meta.json with doc, if checkMeta accepts it. A
// doc that is meta.json as shown changes nothing, not even "updated": an
// editor saving an unchanged file, or putting its backup back after a
// refused save.
func editMeta(s backing.Session, doc []byte) error {
	if err := checkMeta(s, doc); err != nil {
		return err
	}
	if m, err := s.Meta(); err == nil {
		if shown, err := backing.EncodeMeta(m); err == nil && bytes.Equal(shown, doc) {
			return nil
		}
	}
	_, err := s.EditMeta(doc)
	return err
}

// complete reports whether doc is one whole JSON value (its strings' UTF-8
// aside): until it is, an editor may still be writing it in pieces.
func complete(doc []byte) bool { return json.Valid(doc) }

func (n *metaFile) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	if h, ok := fh.(*metaHandle); ok {
		return h.getattr(out)
	}
	doc, err := n.doc()
	if err != nil {
		return n.fsys.toErrno(err)
	}
	mtime, err := n.s.MetaModTime()
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
func (n *metaFile) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if isWrite(flags) {
		if errno := n.fsys.changeable(ctx, n.s); errno != 0 {
			return nil, 0, errno
		}
	}
	doc, err := n.doc()
	if err != nil {
		return nil, 0, n.fsys.toErrno(err)
	}
	h := newMetaHandle(n, n.mode())
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
		n.writers = map[*metaHandle]uint32{}
	}
	n.writers[h] = caller.Pid
	n.mu.Unlock()
	return h, fuse.FOPEN_DIRECT_IO, 0
}

// truncateOpen handles open(O_TRUNC): go-fuse does not negotiate atomic
// O_TRUNC, so the kernel opens without the flag and then sends a size-0
// Setattr that names no file. It belongs to the handle the same process
// just opened for writing and has not written to yet.
func (n *metaFile) truncateOpen(pid uint32) bool {
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

func (n *metaFile) released(h *metaHandle) {
	n.mu.Lock()
	delete(n.writers, h)
	n.mu.Unlock()
}

func (n *metaFile) Read(ctx context.Context, fh fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	if h, ok := fh.(*metaHandle); ok {
		return h.Read(ctx, dest, off)
	}
	doc, err := n.doc()
	if err != nil {
		return nil, n.fsys.toErrno(err)
	}
	return fuse.ReadResultData(slice(doc, off, len(dest))), 0
}

// Setattr takes a size change through an open file (O_TRUNC, ftruncate),
// and times (touch), which change nothing: meta.json's mtime is when the
// store last replaced it. chmod and chown are refused.
func (n *metaFile) Setattr(ctx context.Context, fh fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
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
	h, isHandle := fh.(*metaHandle)
	if !isHandle {
		caller, _ := fuse.FromContext(ctx)
		if sz == 0 && n.truncateOpen(caller.Pid) {
			return n.Getattr(ctx, nil, out)
		}
		// truncate(2) by path has no open file to buffer in; the only
		// size it can set without breaking the document is its own.
		doc, err := n.doc()
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
