package fsnode

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"syscall"
	"unicode/utf8"

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
// returns, or none is and the write fails (EINVAL, EFBIG); the rest of a
// failed line is then discarded with the same error. An unterminated last
// line is committed at close. Text mode: everything written before close
// is one user message, committed in Flush (whose error close returns).
type appendHandle struct {
	fsys *FS
	ref  branchRef
	max  int64

	mu      sync.Mutex
	mode    int    // modeUnknown until the first non-blank byte
	pending []byte // JSON: the unterminated line; text: the whole message
	discard error  // JSON: the rest of a refused line is dropped with this
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
)

func (h *appendHandle) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	return fuse.ReadResultData(nil), 0
}

func (h *appendHandle) Write(ctx context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	h.mu.Lock()
	n, errno := h.write(data)
	h.unlock()
	return n, errno
}

// unlock releases the handle, then tells the kernel of what a commit made
// while it was held: no lock of the mount is held across a notification,
// which waits for the kernel, which may wait for a request of this file.
// The write or close returns after it, so a stat then sees the new size.
func (h *appendHandle) unlock() {
	grown := h.grown
	h.grown = false
	h.mu.Unlock()
	if grown {
		h.fsys.grew(h.ref)
	}
}

func (h *appendHandle) write(data []byte) (uint32, syscall.Errno) {
	n := uint32(len(data))
	if h.mode == modeUnknown {
		all := append(h.pending, data...)
		i := bytes.IndexFunc(all, func(r rune) bool { return r != ' ' && r != '\t' && r != '\n' && r != '\r' })
		switch {
		case i < 0: // only blanks so far: keep them, decide later
			h.pending = all
			return n, 0
		case all[i] == '{':
			h.mode, h.pending, data = modeJSON, nil, all[i:]
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
		return 0, toErrno(err)
	}
	return n, 0
}

// writeText buffers text until close; a message over the limit fails this
// write and every later one, and is never appended.
func (h *appendHandle) writeText(data []byte) error {
	if h.discard == nil && int64(len(h.pending)+len(data)) > h.max {
		h.pending, h.discard = nil, backing.ErrTooLarge
	}
	if h.discard != nil {
		return h.discard
	}
	h.pending = append(h.pending, data...)
	return nil
}

// writeJSON handles one write request in JSON mode: the lines it completes
// are appended together or not at all.
func (h *appendHandle) writeJSON(data []byte) error {
	if h.discard != nil {
		// This request carries the rest of a refused line: it fails
		// whole, and if it ends inside a line, that line goes too.
		err := h.discard
		if bytes.HasSuffix(data, []byte("\n")) {
			h.discard = nil
		}
		return err
	}
	var lines [][]byte
	buf := append(h.pending, data...)
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			break
		}
		if line := bytes.TrimSpace(buf[:i]); len(line) > 0 {
			lines = append(lines, line)
		}
		buf = buf[i+1:]
	}
	if int64(len(buf)) > h.max {
		h.pending, h.discard = nil, backing.ErrTooLarge
		return backing.ErrTooLarge
	}
	if len(lines) > 0 {
		if err := h.append(lines...); err != nil {
			if !errors.Is(err, backing.ErrInvalid) && !errors.Is(err, backing.ErrTooLarge) {
				// A store failure (disk full): the handle stays as it
				// was before this request, so the writer can send the
				// same bytes again. The kernel reports a short write
				// when a split write fails after its first piece.
				return err
			}
			h.pending = nil
			if len(buf) > 0 {
				h.discard = err
			}
			return err
		}
	}
	h.pending = append([]byte(nil), buf...)
	return nil
}

// Flush commits what is pending: the text message, or an unterminated
// JSON line. close(2) returns its error.
func (h *appendHandle) Flush(ctx context.Context) syscall.Errno {
	h.mu.Lock()
	err := h.commit()
	h.unlock()
	return toErrno(err)
}

// Fsync commits nothing: every line a write completed is durable when the
// write returns, and text is one message per close, however often the
// writer syncs in between.
func (h *appendHandle) Fsync(ctx context.Context, flags uint32) syscall.Errno {
	return 0
}

func (h *appendHandle) commit() error {
	if err := h.discard; err != nil && h.mode == modeText {
		h.discard = nil
		return err
	}
	if len(h.pending) == 0 {
		return nil
	}
	var msg []byte
	switch h.mode {
	case modeJSON:
		msg = bytes.TrimSpace(h.pending)
		if len(msg) == 0 {
			h.pending = nil
			return nil
		}
	case modeText:
		text := bytes.TrimSuffix(h.pending, []byte("\n"))
		if !utf8.Valid(text) {
			h.pending = nil
			return errors.Join(backing.ErrInvalid, errors.New("text is not valid UTF-8"))
		}
		var err error
		if msg, err = backing.TextMessage("user", string(text)); err != nil {
			h.pending = nil
			return err
		}
	default: // only blanks were written: nothing to append
		h.pending = nil
		return nil
	}
	h.pending = nil
	return h.append(msg)
}

// append commits lines to the branch; once they are in, unlock refreshes
// what the kernel caches of its renderings.
func (h *appendHandle) append(lines ...[]byte) error {
	if err := h.ref.s.AppendID(h.ref.id, lines); err != nil {
		return err
	}
	h.grown = true
	return nil
}
