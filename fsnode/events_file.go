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

// eventsFile is events.jsonl: the events of a branch (View.EventsAt:
// typed ones a harness wrote, and an imported agent's bookkeeping), each
// its stored line and a newline, in order, ancestry resolved, read-only.
// Its size is the index's arithmetic, known without reading a message;
// a read reads only the events its byte range covers. Made afresh at each
// stat and read (direct I/O), as a docFile is, so the size is exact.
type eventsFile struct {
	base
	ref branchRef

	mu  sync.Mutex // over what it keeps of the branch
	key string     // the branch key the offsets are of
	n   int        // the branch's length then
	at  []int      // the events' positions, as of the last look
	off []int64    // off[k] is where event k starts; off[len(at)] the size
}

var (
	_ = (fs.NodeGetattrer)((*eventsFile)(nil))
	_ = (fs.NodeOpener)((*eventsFile)(nil))
	_ = (fs.NodeReader)((*eventsFile)(nil))
	_ = (fs.NodeSetattrer)((*eventsFile)(nil))
)

// eventsGap is how many bytes of messages between two events a read
// reads through rather than ask the store again: events stand in runs
// among small lines (an agent's bookkeeping) or alone between big ones.
const eventsGap = 64 << 10

// look is the branch as of now, its events' positions and their offsets
// (shared: callers only read them). Events are only appended, so what
// was counted for the same branch is kept and only the new ones added.
func (n *eventsFile) look() (backing.View, []int, []int64, error) {
	v, err := n.ref.view()
	if err != nil {
		return nil, nil, nil, err
	}
	key := n.ref.key(v)
	n.mu.Lock()
	defer n.mu.Unlock()
	if key == n.key && v.Len() == n.n && v.Events() == len(n.at) { // unchanged: a stat lists nothing
		return v, n.at, n.off[: len(n.at)+1 : len(n.at)+1], nil
	}
	at := v.EventsAt()
	n.n = v.Len()
	if key != n.key || len(at) < len(n.at) { // another branch, or a repair
		n.key, n.off = key, []int64{0}
	}
	for k := len(n.off) - 1; k < len(at); k++ {
		n.off = append(n.off, n.off[k]+int64(v.RawLen(at[k]))+1)
	}
	n.at = at
	return v, at, n.off[: len(at)+1 : len(at)+1], nil
}

func (n *eventsFile) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	v, at, off, err := n.look()
	if err != nil {
		return n.fsys.toErrno(err)
	}
	n.fsys.attr(&out.Attr, fileMode|0o444, off[len(at)], v.ModTime())
	return 0
}

func (n *eventsFile) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if isWrite(flags) {
		return nil, 0, syscall.EACCES
	}
	return nil, fuse.FOPEN_DIRECT_IO, 0
}

func (n *eventsFile) Read(ctx context.Context, fh fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	v, at, offs, err := n.look()
	if err != nil {
		return nil, n.fsys.toErrno(err)
	}
	end := min(off+int64(len(dest)), offs[len(at)])
	if off >= end {
		return fuse.ReadResultData(nil), 0
	}
	// Events [first, last) are the ones the range covers.
	first := sort.Search(len(at), func(k int) bool { return offs[k+1] > off })
	last := sort.Search(len(at), func(k int) bool { return offs[k] >= end })
	buf := dest[:0]
	for k := first; k < last; {
		// One read of events k.. and the messages between them, while
		// those are few bytes.
		j, gap := k+1, 0
		for ; j < last; j++ {
			for i := at[j-1] + 1; i < at[j] && gap <= eventsGap; i++ {
				gap += v.RawLen(i)
			}
			if gap > eventsGap {
				break
			}
		}
		from := at[k]
		msgs, err := v.Read(from, at[j-1]+1)
		if err != nil {
			return nil, n.fsys.toErrno(err)
		}
		for ; k < j; k++ {
			raw := msgs[at[k]-from].Raw
			a := max(off, offs[k]) - offs[k]
			b := min(end, offs[k+1]) - offs[k]
			// The line, then its newline; a repair may change a line
			// under the offsets: never slice past it.
			if a < int64(len(raw)) {
				buf = append(buf, raw[a:min(b, int64(len(raw)))]...)
			}
			if b == offs[k+1]-offs[k] {
				buf = append(buf, '\n')
			}
		}
	}
	return fuse.ReadResultData(buf), 0
}

func (n *eventsFile) Setattr(ctx context.Context, fh fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	return syscall.EPERM
}
