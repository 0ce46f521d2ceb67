package fsnode

import (
	"context"
	"sync"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// editHandle is one open of an editFile. Writes edit a private buffer; at
// close or fsync the buffer, if changed, replaces the document if the
// document's check accepts it (for meta.json, a JSON object in UTF-8 with
// the session's id; else EINVAL, and nothing changes). A write (or
// truncation) that leaves the buffer one whole JSON value that the check
// refuses fails itself
// with EINVAL and leaves the buffer as it was, since a shell drops the
// error of close; a buffer that is not yet whole JSON is taken as an
// editor's save in progress. A write past maxEdit (EFBIG) or the mount's
// budget (ENOSPC) leaves the buffer short of what the writer meant: close
// and fsync fail with the same error, and nothing changes, until the
// writer starts over (truncates to 0).
type editHandle struct {
	node *editFile
	mode uint32 // the permissions at open (editFile.mode)

	mu      sync.Mutex
	buf     buffer
	dirty   bool
	written bool  // a write arrived: a later size-0 Setattr is not O_TRUNC's
	failed  error // a write did not fit: see above
}

var (
	_ = (fs.FileReader)((*editHandle)(nil))
	_ = (fs.FileWriter)((*editHandle)(nil))
	_ = (fs.FileFlusher)((*editHandle)(nil))
	_ = (fs.FileFsyncer)((*editHandle)(nil))
	_ = (fs.FileReleaser)((*editHandle)(nil))
)

func newEditHandle(n *editFile, mode uint32) *editHandle {
	return &editHandle{node: n, mode: mode, buf: buffer{max: maxEdit, budget: n.fsys.budget}}
}

// maxEdit bounds the buffer: the documents are small.
const maxEdit = 1 << 20

func (h *editHandle) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return fuse.ReadResultData(h.buf.read(off, len(dest))), 0
}

func (h *editHandle) Write(ctx context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	h.mu.Lock()
	defer h.mu.Unlock()
	was := h.buf.save(off, len(data))
	if err := h.buf.writeAt(data, off); err != nil {
		h.failed = err
		return 0, h.node.fsys.toErrno(err)
	}
	if errno := h.check(was); errno != 0 {
		return 0, errno
	}
	h.dirty, h.written = true, true
	return uint32(len(data)), 0
}

// check refuses a buffer that is whole JSON and no valid document, and
// puts back what the refused change overwrote.
func (h *editHandle) check(was saved) syscall.Errno {
	if !complete(h.buf.data) {
		return 0
	}
	if err := h.node.doc.check(h.buf.data); err != nil {
		h.buf.restore(was)
		return h.node.fsys.toErrno(err)
	}
	return 0
}

func (h *editHandle) fresh() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return !h.written
}

func (h *editHandle) truncate(size int64) syscall.Errno {
	h.mu.Lock()
	defer h.mu.Unlock()
	was := h.buf.save(size, -1)
	if err := h.buf.truncate(size); err != nil {
		h.failed = err
		return h.node.fsys.toErrno(err)
	}
	if size == 0 {
		h.failed = nil // the writer starts over
	}
	if errno := h.check(was); errno != 0 {
		return errno
	}
	h.dirty = true
	return 0
}

func (h *editHandle) getattr(out *fuse.AttrOut) syscall.Errno {
	h.mu.Lock()
	defer h.mu.Unlock()
	var mtime time.Time
	if _, t, err := h.node.doc.read(); err == nil {
		mtime = t
	}
	h.node.fsys.attr(&out.Attr, syscall.S_IFREG|h.mode, int64(len(h.buf.data)), mtime)
	return 0
}

func (h *editHandle) Flush(ctx context.Context) syscall.Errno {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.failed != nil {
		return h.node.fsys.toErrno(h.failed)
	}
	if !h.dirty {
		return 0
	}
	h.dirty = false
	if err := h.node.doc.save(h.buf.data); err != nil {
		return h.node.fsys.toErrno(err)
	}
	// Later reads through this handle show what was stored.
	if doc, _, err := h.node.doc.read(); err == nil {
		h.buf.set(doc) // else (no room) they show what was written
	}
	return 0
}

func (h *editHandle) Fsync(ctx context.Context, flags uint32) syscall.Errno {
	return h.Flush(ctx)
}

// Release gives the buffer back.
func (h *editHandle) Release(ctx context.Context) syscall.Errno {
	h.node.released(h)
	h.mu.Lock()
	h.buf.release()
	h.mu.Unlock()
	return 0
}
