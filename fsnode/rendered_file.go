package fsnode

import (
	"context"
	"sort"
	"sync"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/sessfs/sessfs/backing"
)

// renderedFile is a read-only rendering of a branch, or of one turn of it:
// transcript.md and messages.jsonl. Its size is exact, and a read renders
// only the messages its byte range covers.
type renderedFile struct {
	base
	ref    branchRef
	format format
	turn   int // 0: the whole branch

	mu    sync.Mutex
	known int64 // the size the kernel was last told; -1: none yet
}

var (
	_ = (fs.NodeGetattrer)((*renderedFile)(nil))
	_ = (fs.NodeOpener)((*renderedFile)(nil))
	_ = (fs.NodeReader)((*renderedFile)(nil))
	_ = (fs.NodeSetattrer)((*renderedFile)(nil))
)

// span is the file's content as of now: the view, the piece offsets, and
// the messages [from, to) the file shows.
type span struct {
	v        *backing.View
	off      []int64
	from, to int
}

func (s span) size() int64 { return s.off[s.to] - s.off[s.from] }

func (n *renderedFile) span() (span, error) {
	v, err := n.ref.view()
	if err != nil {
		return span{}, err
	}
	n.fsys.reportDamage(v)
	sp := span{v: v, from: 0, to: v.Len()}
	if n.turn > 0 {
		if sp.from, sp.to, err = v.TurnRange(n.turn); err != nil {
			return span{}, err
		}
	}
	sp.off, err = n.fsys.offsets(n.ref, v, n.format)
	return sp, err
}

// attr answers stat and lookup. The kernel may keep the answer for
// attrTimeout: appends through this mount refresh it at once (FS.grew),
// and appends by others show when it lapses.
func (n *renderedFile) attr(out *fuse.AttrOut) syscall.Errno {
	sp, err := n.span()
	if err != nil {
		return toErrno(err)
	}
	n.fsys.attr(&out.Attr, syscall.S_IFREG|0o444, sp.size(), sp.v.ModTime())
	out.SetTimeout(attrTimeout)
	n.sizeChanged(sp.size())
	if n.turn == 0 || n.turn == sp.v.Turns() {
		n.fsys.watch(n.ref.key(sp.v), n)
	}
	return 0
}

func (n *renderedFile) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	return n.attr(out)
}

// sizeChanged drops the kernel's cached pages that a new size makes stale.
// The mount controls the page cache itself (ExplicitDataCacheControl): a
// rendering only grows at its end, so only the page holding the old end
// (filled with zeros past it) and what follows need to go, and the pages
// before stay cached, however long the session. A size that shrank (a
// repair) drops everything. Every size the kernel learns passes here:
// lookups and getattrs both answer from Getattr.
func (n *renderedFile) sizeChanged(size int64) {
	n.mu.Lock()
	old := n.known
	n.known = size
	n.mu.Unlock()
	switch {
	case old < 0 || old == size:
	case size > old:
		n.NotifyContent(old&^(pageSize-1), 0)
	default:
		n.NotifyContent(0, 0)
	}
}

const pageSize = 4096

// Open refuses writing for everyone, root too: the mode bits alone would
// not stop root.
//
// The kernel keeps the file's pages across opens (keep_cache), and
// sizeChanged drops the pages a new size makes stale. Nothing is ever
// written, so close need not ask the mount (noflush).
func (n *renderedFile) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if isWrite(flags) {
		return nil, 0, syscall.EACCES
	}
	return nil, fuse.FOPEN_KEEP_CACHE | fuse.FOPEN_NOFLUSH, 0
}

func (n *renderedFile) Read(ctx context.Context, fh fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	sp, err := n.span()
	if err != nil {
		return nil, toErrno(err)
	}
	start := sp.off[sp.from] + off // absolute offset in the branch rendering
	end := min(start+int64(len(dest)), sp.off[sp.to])
	if start >= end {
		return fuse.ReadResultData(nil), 0
	}
	// Messages [first, last) are the ones whose pieces overlap the range.
	first := sort.Search(sp.to-sp.from, func(k int) bool { return sp.off[sp.from+k+1] > start }) + sp.from
	last := sort.Search(sp.to-sp.from, func(k int) bool { return sp.off[sp.from+k] >= end }) + sp.from
	msgs, err := sp.v.Read(first, last)
	if err != nil {
		return nil, toErrno(err)
	}
	buf := dest[:0]
	for _, m := range msgs {
		piece := n.format.render(m)
		lo := max(start, sp.off[m.Index]) - sp.off[m.Index]
		hi := min(end, sp.off[m.Index+1]) - sp.off[m.Index]
		// A repair (fsck) can change a message under the cache: never
		// slice past the piece.
		hi = min(hi, int64(len(piece)))
		if lo < hi {
			buf = append(buf, piece[lo:hi]...)
		}
	}
	return fuse.ReadResultData(buf), 0
}

// Setattr refuses truncate, chmod, chown and utimes of a generated file.
func (n *renderedFile) Setattr(ctx context.Context, fh fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	return syscall.EPERM
}
