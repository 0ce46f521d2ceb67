package fsnode

import (
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

// kernel drives a mount's node tree in process, as the kernel would,
// through go-fuse's RawFileSystem (fs.NewNodeFS): lookups by path, opens,
// reads, writes, setattrs and renames, without /dev/fuse. What the mount
// tells the kernel (entry and content notifications) is recorded.
type kernel struct {
	t    *testing.T
	st   backing.Store
	root *Root
	raw  fuse.RawFileSystem
	tell *notified
	uid  uint32 // the caller's: the user who mounted unless a test changes it
	pid  uint32
}

// notified records the notifications a mount sends (fs.ServerCallbacks).
type notified struct {
	mu      sync.Mutex
	entries []string       // EntryNotify: "<parent node>/<name>"
	entry   chan string    // each EntryNotify's name, as it comes
	content []notification // InodeNotify
}

type notification struct {
	node     uint64
	off, len int64
}

func (n *notified) DeleteNotify(parent, child uint64, name string) fuse.Status { return fuse.OK }
func (n *notified) EntryNotify(parent uint64, name string) fuse.Status {
	n.mu.Lock()
	n.entries = append(n.entries, name)
	n.mu.Unlock()
	n.entry <- name
	return fuse.OK
}

func (n *notified) InodeNotify(node uint64, off, length int64) fuse.Status {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.content = append(n.content, notification{node, off, length})
	return fuse.OK
}

func (n *notified) InodeRetrieveCache(node uint64, offset int64, dest []byte) (int, fuse.Status) {
	return 0, fuse.ENOSYS
}

func (n *notified) InodeNotifyStoreCache(node uint64, offset int64, data []byte) fuse.Status {
	return fuse.ENOSYS
}

func (n *notified) contentOf(node uint64) []notification {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []notification
	for _, c := range n.content {
		if c.node == node {
			out = append(out, c)
		}
	}
	return out
}

// newKernel mounts st in process with opts.
func newKernel(t *testing.T, st backing.Store, opts Options) *kernel {
	t.Helper()
	root := New(st, opts)
	tell := &notified{entry: make(chan string, 16)}
	o := MountOptions(st, opts)
	o.ServerCallbacks = tell
	return &kernel{t: t, st: st, root: root, raw: fs.NewNodeFS(root, o), tell: tell, uid: uint32(os.Getuid()), pid: 1}
}

// newStore is an empty store, synced as tests need (not at all).
func newStore(t *testing.T) backing.Store {
	t.Helper()
	st, err := filestore.Open(t.TempDir(), filestore.Options{Sync: filestore.SyncNone})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func (k *kernel) caller() fuse.Caller {
	return fuse.Caller{Owner: fuse.Owner{Uid: k.uid, Gid: uint32(os.Getgid())}, Pid: k.pid}
}

func (k *kernel) header(node uint64) fuse.InHeader {
	return fuse.InHeader{NodeId: node, Caller: k.caller()}
}

// lookup walks path from the root ("" is the root) and returns the last
// node's id, or the errno of the step that failed.
func (k *kernel) lookup(path string) (uint64, syscall.Errno) {
	node := uint64(fuse.FUSE_ROOT_ID)
	if path == "" {
		return node, 0
	}
	for _, name := range strings.Split(path, "/") {
		var out fuse.EntryOut
		h := k.header(node)
		if st := k.raw.Lookup(nil, &h, name, &out); st != fuse.OK {
			return 0, syscall.Errno(st)
		}
		if out.NodeId == 0 { // a negative entry
			return 0, syscall.ENOENT
		}
		node = out.NodeId
	}
	return node, 0
}

// node is lookup that must succeed.
func (k *kernel) node(path string) uint64 {
	k.t.Helper()
	id, errno := k.lookup(path)
	if errno != 0 {
		k.t.Fatalf("lookup %s: %v", path, errno)
	}
	return id
}

func (k *kernel) stat(path string) (fuse.Attr, syscall.Errno) {
	id, errno := k.lookup(path)
	if errno != 0 {
		return fuse.Attr{}, errno
	}
	return k.statNode(id, 0)
}

func (k *kernel) statNode(id, fh uint64) (fuse.Attr, syscall.Errno) {
	in := fuse.GetAttrIn{InHeader: k.header(id)}
	if fh != 0 {
		in.Flags_, in.Fh_ = fuse.FUSE_GETATTR_FH, fh
	}
	var out fuse.AttrOut
	st := k.raw.GetAttr(nil, &in, &out)
	return out.Attr, syscall.Errno(st)
}

// handle is an open file.
type handle struct {
	k        *kernel
	node, fh uint64
	flags    uint32 // what open answered
}

func (k *kernel) open(path string, flags uint32) (*handle, syscall.Errno) {
	id, errno := k.lookup(path)
	if errno != 0 {
		return nil, errno
	}
	return k.openNode(id, flags)
}

// openNode opens node id as the kernel does a name it still maps to it.
func (k *kernel) openNode(id uint64, flags uint32) (*handle, syscall.Errno) {
	in := fuse.OpenIn{InHeader: k.header(id), Flags: flags}
	var out fuse.OpenOut
	if st := k.raw.Open(nil, &in, &out); st != fuse.OK {
		return nil, syscall.Errno(st)
	}
	return &handle{k: k, node: id, fh: out.Fh, flags: out.OpenFlags}, 0
}

// mustOpen is open that must succeed; the handle is released at the end
// of the test if it is not before.
func (k *kernel) mustOpen(path string, flags uint32) *handle {
	k.t.Helper()
	h, errno := k.open(path, flags)
	if errno != 0 {
		k.t.Fatalf("open %s: %v", path, errno)
	}
	return h
}

func (h *handle) read(off int64, size int) ([]byte, syscall.Errno) {
	in := fuse.ReadIn{InHeader: h.k.header(h.node), Fh: h.fh, Offset: uint64(off), Size: uint32(size)}
	buf := make([]byte, size)
	r, st := h.k.raw.Read(nil, &in, buf)
	if st != fuse.OK {
		return nil, syscall.Errno(st)
	}
	b, st := r.Bytes(buf)
	if st != fuse.OK {
		return nil, syscall.Errno(st)
	}
	return append([]byte(nil), b...), 0
}

// readAll reads from 0 in requests of size until a short one, as cat does.
func (h *handle) readAll(size int) []byte {
	h.k.t.Helper()
	var all []byte
	for {
		b, errno := h.read(int64(len(all)), size)
		if errno != 0 {
			h.k.t.Fatalf("read at %d: %v", len(all), errno)
		}
		all = append(all, b...)
		if len(b) < size {
			return all
		}
	}
}

func (h *handle) write(data string, off int64) (uint32, syscall.Errno) {
	in := fuse.WriteIn{InHeader: h.k.header(h.node), Fh: h.fh, Offset: uint64(off), Size: uint32(len(data))}
	n, st := h.k.raw.Write(nil, &in, []byte(data))
	return n, syscall.Errno(st)
}

func (h *handle) flush() syscall.Errno {
	in := fuse.FlushIn{InHeader: h.k.header(h.node), Fh: h.fh}
	return syscall.Errno(h.k.raw.Flush(nil, &in))
}

func (h *handle) fsync() syscall.Errno {
	in := fuse.FsyncIn{InHeader: h.k.header(h.node), Fh: h.fh}
	return syscall.Errno(h.k.raw.Fsync(nil, &in))
}

func (h *handle) release() {
	in := fuse.ReleaseIn{InHeader: h.k.header(h.node), Fh: h.fh}
	h.k.raw.Release(nil, &in)
}

// close is what close(2) sends: flush, then release.
func (h *handle) close() syscall.Errno {
	errno := h.flush()
	h.release()
	return errno
}

// catFile reads a whole file through one open, a request of size at a time.
func (k *kernel) catFile(path string, size int) []byte {
	k.t.Helper()
	h := k.mustOpen(path, syscall.O_RDONLY)
	defer h.release()
	return h.readAll(size)
}

// setattr sends a setattr of path (through fh if not 0).
func (k *kernel) setattr(path string, fh uint64, in fuse.SetAttrIn) (fuse.Attr, syscall.Errno) {
	id, errno := k.lookup(path)
	if errno != 0 {
		return fuse.Attr{}, errno
	}
	return k.setattrNode(id, fh, in)
}

// setattrNode sends a setattr of a node the kernel knows, as it does for
// a file it looked up earlier (or holds open) whatever became of its name.
func (k *kernel) setattrNode(id, fh uint64, in fuse.SetAttrIn) (fuse.Attr, syscall.Errno) {
	in.InHeader = k.header(id)
	if fh != 0 {
		in.Valid |= fuse.FATTR_FH
		in.Fh = fh
	}
	var out fuse.AttrOut
	st := k.raw.SetAttr(nil, &in, &out)
	return out.Attr, syscall.Errno(st)
}

func (k *kernel) rename(from, to string, flags uint32) syscall.Errno {
	fromDir, fromName := splitPath(from)
	toDir, toName := splitPath(to)
	a, errno := k.lookup(fromDir)
	if errno != 0 {
		return errno
	}
	b, errno := k.lookup(toDir)
	if errno != 0 {
		return errno
	}
	in := fuse.RenameIn{InHeader: k.header(a), Newdir: b, Flags: flags}
	return syscall.Errno(k.raw.Rename(nil, &in, fromName, toName))
}

// create makes a file as open(O_CREAT|flags) does.
func (k *kernel) create(path string, flags uint32) (*handle, syscall.Errno) {
	dir, name := splitPath(path)
	id, errno := k.lookup(dir)
	if errno != 0 {
		return nil, errno
	}
	in := fuse.CreateIn{InHeader: k.header(id), Flags: flags | syscall.O_CREAT, Mode: 0o644}
	var out fuse.CreateOut
	if st := k.raw.Create(nil, &in, name, &out); st != fuse.OK {
		return nil, syscall.Errno(st)
	}
	return &handle{k: k, node: out.NodeId, fh: out.Fh, flags: out.OpenFlags}, 0
}

func (k *kernel) mkdir(path string) syscall.Errno {
	dir, name := splitPath(path)
	id, errno := k.lookup(dir)
	if errno != 0 {
		return errno
	}
	in := fuse.MkdirIn{InHeader: k.header(id), Mode: 0o755}
	var out fuse.EntryOut
	return syscall.Errno(k.raw.Mkdir(nil, &in, name, &out))
}

func (k *kernel) rmdir(path string) syscall.Errno {
	dir, name := splitPath(path)
	id, errno := k.lookup(dir)
	if errno != 0 {
		return errno
	}
	h := k.header(id)
	return syscall.Errno(k.raw.Rmdir(nil, &h, name))
}

func (k *kernel) unlink(path string) syscall.Errno {
	dir, name := splitPath(path)
	id, errno := k.lookup(dir)
	if errno != 0 {
		return errno
	}
	h := k.header(id)
	return syscall.Errno(k.raw.Unlink(nil, &h, name))
}

func (k *kernel) symlink(target, path string) syscall.Errno {
	dir, name := splitPath(path)
	id, errno := k.lookup(dir)
	if errno != 0 {
		return errno
	}
	h := k.header(id)
	var out fuse.EntryOut
	return syscall.Errno(k.raw.Symlink(nil, &h, target, name, &out))
}

func (k *kernel) readlink(path string) (string, syscall.Errno) {
	id, errno := k.lookup(path)
	if errno != 0 {
		return "", errno
	}
	h := k.header(id)
	b, st := k.raw.Readlink(nil, &h)
	return string(b), syscall.Errno(st)
}

// readdir lists a folder's names, asking its node as go-fuse does for
// a READDIR (the RawFileSystem's answer is packed for the kernel).
func (k *kernel) readdir(path string) ([]string, syscall.Errno) {
	if _, errno := k.lookup(path); errno != 0 {
		return nil, errno
	}
	in := k.inode(path)
	ctx := &fuse.Context{Caller: k.caller()}
	var names []string
	if od, ok := in.Operations().(fs.NodeOpendirHandler); ok { // a listing of its own
		fh, _, errno := od.OpendirHandle(ctx, 0)
		if errno != 0 {
			return nil, errno
		}
		defer fh.(fs.FileReleasedirer).Releasedir(ctx, 0)
		for {
			e, errno := fh.(fs.FileReaddirenter).Readdirent(ctx)
			if errno != 0 {
				return nil, errno
			}
			if e == nil {
				return names, 0
			}
			names = append(names, e.Name)
		}
	}
	rd, ok := in.Operations().(fs.NodeReaddirer)
	if !ok {
		return nil, syscall.ENOTDIR
	}
	ds, errno := rd.Readdir(ctx)
	if errno != 0 {
		return nil, errno
	}
	defer ds.Close()
	for ds.HasNext() {
		e, errno := ds.Next()
		if errno != 0 {
			return nil, errno
		}
		names = append(names, e.Name)
	}
	return names, 0
}

// inode is the tree's node at path, which a lookup has put there.
func (k *kernel) inode(path string) *fs.Inode {
	k.t.Helper()
	in := k.root.EmbeddedInode()
	if path == "" {
		return in
	}
	for _, name := range strings.Split(path, "/") {
		if in = in.GetChild(name); in == nil {
			k.t.Fatalf("%s: not in the tree", path)
		}
	}
	return in
}

func splitPath(p string) (dir, name string) {
	i := strings.LastIndex(p, "/")
	if i < 0 {
		return "", p
	}
	return p[:i], p[i+1:]
}
