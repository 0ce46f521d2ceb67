package fsnode

import (
	"context"
	"sync"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/sessfs/sessfs/backing"
)

// scratchFile is an editor's temporary file in a session folder (see
// isEditorTemp): a swap file, a backup, the new meta.json written beside
// it and renamed over. It lives in memory only (bounded, gone at
// unmount), charged to the mount's budget like what open files buffer;
// renamed onto meta.json it replaces the document.
type scratchFile struct {
	base
	s   backing.Session // whose folder it is in: in the trash it is read-only too
	ino uint64          // its own: a new file of an old name is a new inode

	mu    sync.Mutex
	buf   buffer
	mtime time.Time
	gone  bool // it left its folder (see drop)
}

// Bounds of scratch files: they hold small documents, not data.
const (
	maxScratchSize  = 1 << 20
	maxScratchFiles = 16
)

var (
	_ = (fs.NodeGetattrer)((*scratchFile)(nil))
	_ = (fs.NodeSetattrer)((*scratchFile)(nil))
	_ = (fs.NodeOpener)((*scratchFile)(nil))
	_ = (fs.NodeReader)((*scratchFile)(nil))
	_ = (fs.NodeWriter)((*scratchFile)(nil))
	_ = (fs.NodeOnForgetter)((*scratchFile)(nil))
)

func newScratchFile(fsys *FS, s backing.Session) *scratchFile {
	return &scratchFile{base: base{fsys: fsys}, s: s, ino: fsys.scratchIno(), buf: buffer{max: maxScratchSize, budget: fsys.budget}, mtime: time.Now()}
}

// drop gives the file's bytes and their charge back once it has left
// its folder: unlinked, replaced by a rename, or renamed onto meta.json.
func (n *scratchFile) drop() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.gone = true
	n.buf.release()
}

// settle is drop for a file just renamed onto a document the store took
// (meta.json, tasks.json, memory.json): until the kernel looks the name
// up again, which the mount asks of it at once but which comes after the
// rename returns, the name still leads to this file, so it reads as the
// document the store now shows rather than as nothing. The document is
// held uncharged: the store bounds it.
func (n *scratchFile) settle(doc []byte) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.gone = true
	n.buf.release()
	n.buf.hold(doc)
}

// OnForget gives back what a file that left its folder took since (a
// write through a descriptor still open): the kernel holds it no more.
// One still in its folder keeps its bytes: a lookup finds it again.
func (n *scratchFile) OnForget() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.gone {
		n.buf.release()
	}
}

func (n *scratchFile) stable() fs.StableAttr {
	return fs.StableAttr{Mode: syscall.S_IFREG, Ino: n.ino}
}

// Getattr reports mode 0600 whatever was asked: vim's write test (4913)
// then sees that the folder does not keep modes and backs meta.json up by
// copying, the one way here (meta.json cannot be renamed away).
func (n *scratchFile) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.fsys.attr(&out.Attr, fileMode|0o600, int64(len(n.buf.data)), n.mtime)
	return 0
}

// Setattr takes sizes and accepts mode and time changes, which editors
// make to their files, as no-ops.
func (n *scratchFile) Setattr(ctx context.Context, fh fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if errno := n.fsys.changeable(ctx, n.s); errno != 0 {
		return errno
	}
	if sz, ok := in.GetSize(); ok {
		n.mu.Lock()
		err := n.buf.truncate(int64(sz))
		n.mtime = time.Now()
		n.mu.Unlock()
		if err != nil {
			return n.fsys.toErrno(err)
		}
	}
	return n.Getattr(ctx, fh, out)
}

// Open for writing (or truncating) is refused where any change to the
// session is (FS.changeable): a temporary made before the session went to
// the trash is read-only there, as the rest of its folder.
func (n *scratchFile) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if isWrite(flags) || flags&syscall.O_TRUNC != 0 {
		if errno := n.fsys.changeable(ctx, n.s); errno != 0 {
			return nil, 0, errno
		}
	}
	if flags&syscall.O_TRUNC != 0 {
		n.mu.Lock()
		n.buf.release()
		n.mu.Unlock()
	}
	return nil, fuse.FOPEN_DIRECT_IO, 0
}

func (n *scratchFile) Read(ctx context.Context, fh fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return fuse.ReadResultData(n.buf.read(off, len(dest))), 0
}

func (n *scratchFile) Write(ctx context.Context, fh fs.FileHandle, data []byte, off int64) (uint32, syscall.Errno) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.buf.writeAt(data, off); err != nil {
		return 0, n.fsys.toErrno(err)
	}
	n.mtime = time.Now()
	return uint32(len(data)), 0
}

func (n *scratchFile) content() []byte {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.buf.read(0, len(n.buf.data))
}
