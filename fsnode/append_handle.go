package fsnode

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/sessfs/sessfs/backing"
)

// appendHandle is one open of `append`. Like a write to an acme control
// file, a write is a command: its error is the write's error.
//
// The first non-blank byte decides the mode. JSON mode ('{'): each line is
// a message, validated when its newline arrives; the lines one write
// request completes are appended together, durably, before the write
// returns, or none is and the write fails (EINVAL, EFBIG, ENOSPC). An
// unterminated last line is committed at close. Text mode: everything
// written before close is one user message, committed in Flush (whose
// error close returns). What a handle holds meanwhile is charged to the
// mount's budget (buffer.go) and given back when it is committed or
// refused, and at close.
type appendHandle struct {
	fsys *FS
	ref  branchRef
	node *appendFile // the node opened, told of the release

	mu      sync.Mutex
	mode    int    // modeUnknown until the first non-blank byte
	pending buffer // JSON: the unterminated line; text: the whole message
	discard error  // the rest of a refused line (JSON) or message (text) fails with this
	grown   bool   // an append was committed: tell the kernel once unlocked
}

const (
	modeUnknown = iota
	modeJSON
	modeText
)

var (
	_ = (fs.FileWriter)((*appendHandle)(nil))
	_ = (fs.FileReader)((*appendHandle)(nil))
	_ = (fs.FileFlusher)((*appendHandle)(nil))
	_ = (fs.FileFsyncer)((*appendHandle)(nil))
	_ = (fs.FileReleaser)((*appendHandle)(nil))
)

func newAppendHandle(fsys *FS, ref branchRef) *appendHandle {
	return &appendHandle{fsys: fsys, ref: ref, pending: buffer{max: fsys.st.MaxMessage(), budget: fsys.budget}}
}

func (h *appendHandle) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	return fuse.ReadResultData(nil), 0
}

func (h *appendHandle) Write(ctx context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	h.mu.Lock()
	n, errno := h.write(data)
	h.unlock()
	return n, errno
}

// unlock releases the handle, then tells the kernel what the change feed
// reported of a commit made while it was held (FS.flush): no lock of the
// mount is held across a notification, which waits for the kernel, which
// may wait for a request of this file. The write or close returns after
// it, so a stat then sees the new size.
func (h *appendHandle) unlock() {
	grown := h.grown
	h.grown = false
	h.mu.Unlock()
	if grown {
		h.fsys.flush()
	}
}

func (h *appendHandle) write(data []byte) (uint32, syscall.Errno) {
	n := uint32(len(data))
	if h.mode == modeUnknown {
		i := backing.FirstNonBlank(data)
		switch {
		case i < 0: // only blanks so far: keep them (text keeps them), decide later
			if err := h.pending.append(data); err != nil {
				return 0, h.fsys.toErrno(err)
			}
			return n, 0
		case data[i] == '{':
			h.mode, data = modeJSON, data[i:]
			h.pending.replace(nil)
		default:
			h.mode = modeText
		}
	}
	var err error
	if h.mode == modeText {
		err = h.writeText(data)
	} else {
		err = h.writeJSON(data)
	}
	if err != nil {
		return 0, h.fsys.toErrno(err)
	}
	return n, 0
}

// writeText buffers text until close; a message over the limit, or past
// the mount's budget, fails this write and every later one until close,
// and is never appended.
func (h *appendHandle) writeText(data []byte) error {
	if h.discard != nil {
		return h.discard
	}
	if err := h.pending.append(data); err != nil {
		h.pending.release()
		h.discard = err
		return err
	}
	return nil
}

// writeJSON handles one write request in JSON mode: the lines it completes
// are appended together or not at all. Only data is scanned for newlines,
// and the line left unterminated is added to in place, so a line written
// in small pieces costs time in proportion to its length.
//
// A refused request is not taken: the kernel reports the pieces of a
// write(2) before it as written, and the writer sends the rest again,
// from the middle of the line that was pending. So once a line is refused
// (invalid, too large), everything up to its newline fails the same way,
// however the kernel or the writer split it: the line pending before the
// refused request (which a re-sent rest would end) and the line the
// request ends inside (which a writer moving on would go on with) are
// refused up to the end of the next request that ends with a newline. A
// request that fails for want of room (a full disk, the mount's budget)
// leaves the handle as it was, so the writer can send the same bytes
// again.
func (h *appendHandle) writeJSON(data []byte) error {
	if h.discard != nil {
		err := h.discard
		if bytes.HasSuffix(data, []byte("\n")) {
			h.discard = nil
		}
		return err
	}
	first := bytes.IndexByte(data, '\n')
	if first < 0 {
		err := h.pending.append(data)
		if err != nil && refused(err) {
			return h.refuse(err, true)
		}
		return err
	}
	last := bytes.LastIndexByte(data, '\n')
	rest := data[last+1:]
	was := h.pending.Len()
	began := !blank(h.pending.data) // a line began before this request
	err := h.pending.append(data[:first])
	if err == nil {
		// Room for what stays pending after the commit, made before it:
		// once the lines are in, the write must succeed.
		err = h.pending.room(int64(len(rest)))
	}
	if err == nil {
		err = h.append(lines(h.pending.data, data[first+1:last+1])...)
	}
	if err != nil {
		if !refused(err) {
			h.pending.truncate(int64(was))
			return err
		}
		return h.refuse(err, began || !blank(rest))
	}
	h.pending.replace(rest)
	return nil
}

// lines splits the lines one request completes: the pending line, ended
// by the request's first newline, then the request's whole lines. Blank
// lines are skipped.
func lines(pending, whole []byte) [][]byte {
	var out [][]byte
	if line := bytes.TrimSpace(pending); len(line) > 0 {
		out = append(out, line)
	}
	more, _ := backing.SplitLines(whole)
	return append(out, more...)
}

func blank(b []byte) bool { return len(bytes.TrimSpace(b)) == 0 }

// refused reports whether err refuses what was written (an invalid or too
// large line), rather than wants room (a full disk, the mount's budget).
func refused(err error) bool {
	return errors.Is(err, backing.ErrInvalid) || errors.Is(err, backing.ErrTooLarge)
}

// refuse drops the line pending and fails the request with err; if the
// rest of a refused line may follow (rest), it fails with err too.
func (h *appendHandle) refuse(err error, rest bool) error {
	h.pending.release()
	if rest {
		h.discard = err
	}
	return err
}

// Flush commits what is pending: the text message, or an unterminated
// JSON line. close(2) returns its error.
func (h *appendHandle) Flush(ctx context.Context) syscall.Errno {
	h.mu.Lock()
	err := h.commit()
	h.unlock()
	return h.fsys.toErrno(err)
}

// Fsync commits nothing: every line a write completed is durable when the
// write returns, and text is one message per close, however often the
// writer syncs in between.
func (h *appendHandle) Fsync(ctx context.Context, flags uint32) syscall.Errno {
	return 0
}

// Release gives back what the handle still holds.
func (h *appendHandle) Release(ctx context.Context) syscall.Errno {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.pending.release()
	h.discard = nil
	if h.node != nil {
		h.node.opens.Add(-1)
	}
	return 0
}

func (h *appendHandle) commit() error {
	if err := h.discard; err != nil && h.mode == modeText {
		h.discard = nil
		return err
	}
	defer h.pending.release()
	switch h.mode {
	case modeJSON:
		if msg := bytes.TrimSpace(h.pending.data); len(msg) > 0 {
			return h.append(msg)
		}
	case modeText:
		if h.pending.Len() == 0 {
			return nil
		}
		msg, err := backing.TextInput("user", h.pending.data)
		h.pending.release() // before the commit: the message holds a copy
		if err != nil {
			return err
		}
		return h.append(msg)
	}
	// Only blanks were written: nothing to append.
	return nil
}

// append commits lines to the branch; once they are in, unlock refreshes
// what the kernel caches of its renderings.
func (h *appendHandle) append(lines ...[]byte) error {
	if len(lines) == 0 {
		return nil
	}
	if err := h.ref.s.AppendID(h.ref.id, lines); err != nil {
		return err
	}
	h.grown = true
	return nil
}
