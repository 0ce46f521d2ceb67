package fsnode

import (
	"context"
	"hash/crc32"
	"sort"
	"sync"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/sessfs/sessfs/backing"
)

// renderedFile is a read-only rendering of a branch (transcript.md,
// transcript.html, transcript.redacted.md, messages.jsonl, export.json),
// of one turn of it (transcript.md, messages.jsonl), or of its own
// messages after its fork point (since-fork.jsonl). Its size is exact,
// and a read renders only the messages its byte range covers.
type renderedFile struct {
	base
	ref       branchRef
	format    format
	turn      int  // 0: the whole branch
	sinceFork bool // only the messages after the fork point (View.Inherited)

	mu      sync.Mutex
	known   int64  // the size the kernel was last told; -1: none yet
	headSum uint32 // a checksum of the head it was last told of
	headLen int    // and its length
	// The frame it was last told of (frame.go), which reads through the
	// page cache take. A rendering whose end moves is read through a
	// handle holding its own (renderedHandle): its node keeps none, as
	// transcript.html's head is 6 KiB of style sheet, which nodes the
	// kernel holds of every session read would all keep.
	head, tail []byte
	key        string // the branch key it is watched under (live.go); "" if not
	sizes      sizeKey
	cache      *sizeCache // held under sizes (sizes.go); nil if none
	forgotten  bool       // the kernel forgot the node: it holds nothing more

	clock turnClock // the turn's time, when turn > 0
}

// bigPiece is a rendered piece kept between read requests: a piece larger
// than one request (the kernel asks 128 KiB at a time) would otherwise be
// rendered again, and its message read again, for every request that
// covers part of it. The mount keeps one (FS.big), so what it holds is
// bounded however many files are read, and only while a rendering the
// kernel holds uses its branch and format (dropSizes lets it go).
type bigPiece struct {
	id    pieceID
	piece []byte
}

// pieceID is what a piece is rendered from, known from the view's index
// without reading the message: the branch and format, the message's
// place, the turn it starts (0: none) and the length of its stored line.
// Messages are only appended, so these name one message's bytes (a
// repair that rewrote one in place to the same length would go unseen
// here, as by the piece offsets).
type pieceID struct {
	sizes  sizeKey
	index  int
	turn   int
	rawLen int
}

// bigPieceMin is the size from which a piece is kept: one read request.
const bigPieceMin = 128 << 10

// pieceID is message i's, as format.render sees it: the turn it starts,
// as View.Read flags it, is where TurnOf changes.
func (s span) pieceID(i int) pieceID {
	turn := s.v.TurnOf(i)
	if i > 0 && s.v.TurnOf(i-1) == turn {
		turn = 0
	}
	return pieceID{sizes: s.key, index: i, turn: turn, rawLen: s.v.RawLen(i)}
}

// keptPiece is the mount's kept piece if it is id's, else nil.
func (f *FS) keptPiece(id pieceID) []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.big.piece != nil && f.big.id == id {
		return f.big.piece
	}
	return nil
}

// keepPiece makes piece the mount's kept one while a rendering the kernel
// holds uses its branch and format: a late request after the last of them
// was forgotten keeps nothing.
func (f *FS) keepPiece(id pieceID, piece []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.sizes[id.sizes] != nil {
		f.big = bigPiece{id: id, piece: piece}
	}
}

// newRenderedFile is the node of ref's rendering in format f, of its turn
// (0: the whole branch). The kernel has been told no size of it yet.
func newRenderedFile(fsys *FS, ref branchRef, f format, turn int) *renderedFile {
	return &renderedFile{base: base{fsys: fsys}, ref: ref, format: f, turn: turn, known: -1}
}

// newSinceForkFile is since-fork.jsonl of ref: its messages after its fork
// point, as messages.jsonl has them, so that appending the file to another
// branch's append is an append-merge. It only grows, as messages.jsonl
// does, and shares its piece offsets.
func newSinceForkFile(fsys *FS, ref branchRef) *renderedFile {
	n := newRenderedFile(fsys, ref, formatJSONL, 0)
	n.sinceFork = true
	return n
}

var (
	_ = (fs.NodeOnForgetter)((*renderedFile)(nil))
	_ = (fs.NodeGetattrer)((*renderedFile)(nil))
	_ = (fs.NodeOpener)((*renderedFile)(nil))
	_ = (fs.NodeReader)((*renderedFile)(nil))
	_ = (fs.NodeSetattrer)((*renderedFile)(nil))
)

// span is the file's content as of now: the view, the piece offsets, and
// the messages [from, to) the file shows.
type span struct {
	v          backing.View
	off        []int64
	from, to   int
	head, tail []byte     // what frames the pieces (frame.go)
	key        sizeKey    // the branch and format: what off is cached under
	sizes      *sizeCache // the cache off is of, which reads turns' endings for the pieces' notes
}

func (s span) pieces() int64 { return s.off[s.to] - s.off[s.from] }
func (s span) size() int64   { return int64(len(s.head)) + s.pieces() + int64(len(s.tail)) }

// span is the file as of now. fresh reads the frame (meta.json, the
// branch list) again, as a stat does; a read uses the frame the kernel was
// last told of, so its bytes agree with the size the kernel holds, and
// does not reread meta.json for every 128 KiB.
func (n *renderedFile) span(fresh bool) (span, error) {
	v, err := n.ref.view()
	if err != nil {
		return span{}, err
	}
	n.fsys.reportDamage(n.ref.s, v)
	sp := span{v: v, from: 0, to: v.Len()}
	if n.sinceFork {
		sp.from = v.Inherited()
	}
	if n.turn > 0 {
		if sp.from, sp.to, err = v.TurnRange(n.turn); err != nil {
			return span{}, err
		}
	}
	n.mu.Lock()
	sp.head, sp.tail = n.head, n.tail
	n.mu.Unlock()
	if fresh || (sp.head == nil && sp.tail == nil) {
		if sp.head, sp.tail, err = n.frame(v); err != nil {
			return span{}, err
		}
	}
	sp.key = sizeKey{n.ref.key(v), n.format}
	sp.sizes = n.sizeCache(sp.key)
	sp.off, err = sp.sizes.offsets(n.fsys, n.ref.s, v, n.format)
	return sp, err
}

// sizeCache returns the piece offsets' cache of k, which the node holds
// until it is forgotten, or until its key moves (the default branch
// changed).
func (n *renderedFile) sizeCache(k sizeKey) *sizeCache {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.forgotten { // a late request: answer it, keep nothing
		return newSizeCache(k)
	}
	if n.cache == nil || n.sizes != k {
		c := n.fsys.holdSizes(k)
		if n.cache != nil {
			n.fsys.dropSizes(n.sizes)
		}
		n.sizes, n.cache = k, c
	}
	return n.cache
}

// attr answers stat and lookup. The kernel may keep the answer for
// attrTimeout, or until the change feed reports a change (live.go).
func (n *renderedFile) attr(out *fuse.AttrOut) syscall.Errno {
	sp, err := n.span(true)
	if err != nil {
		return n.fsys.toErrno(err)
	}
	mtime := sp.v.ModTime()
	if n.turn > 0 { // the span has the turn's range: [sp.from, sp.to)
		mtime = n.clock.time(sp.v, sp.key.branch, sp.to)
	}
	n.fsys.attr(&out.Attr, syscall.S_IFREG|0o444, sp.size(), mtime)
	out.SetTimeout(attrTimeout)
	n.changed(sp)
	if n.turn == 0 || n.turn == sp.v.Turns() {
		key := n.ref.key(sp.v)
		n.mu.Lock()
		if !n.forgotten { // else OnForget has unwatched it for good
			n.key = key
			n.fsys.watch(key, n)
		}
		n.mu.Unlock()
	}
	return 0
}

// OnForget drops the node from the watched renderings once the kernel no
// longer holds it (nothing is cached to tell about), and lets go of its
// size cache, which goes with its last user.
func (n *renderedFile) OnForget() {
	n.mu.Lock()
	key, sizes, held := n.key, n.sizes, n.cache != nil
	n.forgotten, n.cache = true, nil
	n.mu.Unlock()
	if key != "" {
		n.fsys.unwatch(key, n)
	}
	if held {
		n.fsys.dropSizes(sizes)
	}
}

func (n *renderedFile) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	return n.attr(out)
}

// changed drops the kernel's cached pages that the file as it is now
// makes stale. The mount controls the page cache itself
// (ExplicitDataCacheControl): a rendering only grows before its tail, so
// only the page holding the old tail (and the old end, zero-filled past
// it) and what follows need to go, and the pages before stay cached,
// however long the session. A head that changed in place drops its own
// pages too; a size that shrank (a repair) or a head that changed length
// (a new title) drops everything. Every size
// the kernel learns passes here: lookups and getattrs both answer from
// attr, and the change feed's from FS.flush.
func (n *renderedFile) changed(sp span) {
	size, sum := sp.size(), crc32.ChecksumIEEE(sp.head)
	n.mu.Lock()
	old, oldSum, oldHead := n.known, n.headSum, n.headLen
	n.known, n.headSum, n.headLen = size, sum, len(sp.head)
	if !n.endMoves() {
		n.head, n.tail = sp.head, sp.tail
	}
	n.mu.Unlock()
	head := int64(len(sp.head))
	switch {
	case old < 0 || (old == size && oldSum == sum):
	case size >= old && oldHead == len(sp.head):
		// The head changed in place, if at all (transcript.md's header
		// says the minute of the last activity, at a fixed width): its
		// pages go, and those of the old tail and end.
		if oldSum != sum {
			n.NotifyContent(0, head)
		}
		if size > old {
			n.NotifyContent((old-int64(len(sp.tail)))&^(pageSize-1), 0)
		}
	default:
		n.NotifyContent(0, 0)
	}
}

const pageSize = 4096

// Open refuses writing for everyone, root too: the mode bits alone would
// not stop root.
//
// A rendering that only grows is read as it is now, through the kernel's
// page cache, which it keeps across opens (keep_cache): changed drops the
// pages a new size makes stale, and `tail -f` follows it. One whose end
// moves (endMoves) is read through a handle that holds it as it was at
// open (renderedHandle). Nothing is ever written, so close need not ask
// the mount (noflush).
func (n *renderedFile) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if isWrite(flags) {
		return nil, 0, syscall.EACCES
	}
	if !n.endMoves() {
		sid := n.ref.s.ID()
		n.fsys.follow(sid)
		return &followHandle{fsys: n.fsys, sid: sid}, fuse.FOPEN_KEEP_CACHE | fuse.FOPEN_NOFLUSH, 0
	}
	sp, err := n.span(true)
	if err != nil {
		return nil, 0, n.fsys.toErrno(err)
	}
	return &renderedHandle{sp: sp}, fuse.FOPEN_DIRECT_IO | fuse.FOPEN_NOFLUSH, 0
}

// endMoves reports whether an append rewrites bytes before the file's old
// end: the tail that closes transcript.html and export.json.
func (n *renderedFile) endMoves() bool {
	return n.turn == 0 && (n.format == formatHTML || n.format == formatJSON)
}

func (n *renderedFile) Read(ctx context.Context, fh fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	if h, ok := fh.(*renderedHandle); ok {
		return n.readSpan(h.sp, dest, off)
	}
	// Through the page cache, a read short of the size the kernel holds
	// is taken for the end of the file and the rest of its page kept as
	// zeros, which a reader (tail -f) then prints. The view at hand may be
	// older than the size the kernel was told, or a change may be told
	// while this read is under way: read again, from a view as new as
	// that size, while the answer falls short of it.
	for try := 0; ; try++ {
		n.mu.Lock()
		known := n.known
		n.mu.Unlock()
		sp, err := n.span(try > 0)
		if err != nil {
			return nil, n.fsys.toErrno(err)
		}
		res, errno := n.readSpan(sp, dest, off)
		n.mu.Lock()
		known = max(known, n.known)
		n.mu.Unlock()
		if errno != 0 || try == 2 || sp.size() >= min(known, off+int64(len(dest))) {
			return res, errno
		}
	}
}

// readSpan reads the file as sp holds it.
func (n *renderedFile) readSpan(sp span, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	// The file is head, pieces, tail: serve each part the range covers.
	buf := dest[:0]
	end := min(off+int64(len(dest)), sp.size())
	if off >= end {
		return fuse.ReadResultData(nil), 0
	}
	if off < int64(len(sp.head)) {
		buf = append(buf, sp.head[off:min(end, int64(len(sp.head)))]...)
	}
	pieceEnd := int64(len(sp.head)) + sp.pieces()
	if off < pieceEnd && end > int64(len(sp.head)) {
		var err error
		if buf, err = n.readPieces(sp, buf, max(off, int64(len(sp.head)))-int64(len(sp.head)), min(end, pieceEnd)-int64(len(sp.head))); err != nil {
			return nil, n.fsys.toErrno(err)
		}
	}
	if end > pieceEnd {
		buf = append(buf, sp.tail[max(off, pieceEnd)-pieceEnd:end-pieceEnd]...)
	}
	return fuse.ReadResultData(buf), 0
}

// readPieces appends bytes [from, to) of the pieces of sp to buf,
// rendering only the messages they cover. The range's first and last
// pieces may be big ones that other requests share: the mount's kept
// piece is served without reading its message again, and a big piece the
// range does not cover whole is kept for the next request.
func (n *renderedFile) readPieces(sp span, buf []byte, from, to int64) ([]byte, error) {
	start := sp.off[sp.from] + from // absolute offset in the branch rendering
	end := sp.off[sp.from] + to
	// Messages [first, last) are the ones whose pieces overlap the range.
	first := sort.Search(sp.to-sp.from, func(k int) bool { return sp.off[sp.from+k+1] > start }) + sp.from
	last := sort.Search(sp.to-sp.from, func(k int) bool { return sp.off[sp.from+k] >= end }) + sp.from
	big := func(i int) bool { return sp.off[i+1]-sp.off[i] >= bigPieceMin }
	var keptFirst, keptLast []byte
	lo, hi := first, last // the messages to read
	if lo < hi && big(lo) {
		if keptFirst = n.fsys.keptPiece(sp.pieceID(lo)); keptFirst != nil {
			lo++
		}
	}
	if lo < hi && big(hi-1) {
		if keptLast = n.fsys.keptPiece(sp.pieceID(hi - 1)); keptLast != nil {
			hi--
		}
	}
	msgs, err := sp.v.Read(lo, hi)
	if err != nil {
		return nil, err
	}
	var keep *bigPiece
	for i := first; i < last; i++ {
		var piece []byte
		switch {
		case i < lo:
			piece = keptFirst
		case i >= hi:
			piece = keptLast
		case sp.off[i] >= start && sp.off[i+1] <= end:
			// Read whole, as every piece up to the range's last may be:
			// rendered right into the answer.
			j := i + 1
			for j < hi && sp.off[j+1] <= end {
				j++
			}
			if buf, err = n.appendWhole(sp, buf, msgs[i-lo:j-lo], sp.off[i:j+1]); err != nil {
				return nil, err
			}
			i = j - 1
			continue
		default:
			// Read in part: a piece of its own, of the size the offsets
			// say, which a big one is kept as.
			if piece, err = sp.sizes.appendPiece(make([]byte, 0, sp.off[i+1]-sp.off[i]), sp.v, msgs[i-lo], n.format); err != nil {
				return nil, err
			}
			if len(piece) >= bigPieceMin && (sp.off[i] < start || sp.off[i+1] > end) {
				// The last one wins: reads go forward.
				keep = &bigPiece{id: sp.pieceID(i), piece: piece}
			}
		}
		a := max(start, sp.off[i]) - sp.off[i]
		b := min(end, sp.off[i+1]) - sp.off[i]
		// A repair (fsck) can change a message under the cache: never
		// slice past the piece.
		b = min(b, int64(len(piece)))
		if a < b {
			buf = append(buf, piece[a:b]...)
		}
	}
	if keep != nil {
		n.fsys.keepPiece(keep.id, keep.piece)
	}
	return buf, nil
}

// Setattr refuses truncate, chmod, chown and utimes of a generated file.
func (n *renderedFile) Setattr(ctx context.Context, fh fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	return syscall.EPERM
}
