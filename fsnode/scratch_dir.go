package fsnode

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"

	"github.com/sessfs/sessfs/backing"
)

// A session folder keeps no file of a user's own: anything written there
// would live only in this mount's memory and vanish at unmount. It takes
// only the temporaries editors make beside a file they save, so that
// their swap, backup and temp-then-rename saves of meta.json, tasks.json
// and memory.json work; every
// other name is refused with EPERM, nothing made (EPERM, as for links and
// device nodes: the folder does not do that, for root either; EACCES
// would send people to chmod).

// editable are the files of a session folder a person edits.
var editable = []string{"meta.json", "tasks.json", "memory.json"}

// isEditorTemp is the one rule for the names of editors' temporaries. A
// name is one if, after a leading ".#", "#" or "." (editors' marks of lock,
// auto-save and hidden files), it starts with the name of an editable file:
// .meta.json.swp (vim, nano), meta.json~ (backups), #meta.json# and
// .#meta.json (emacs), meta.json.tmp, meta.json.vsctmp, .meta.json123 (temp
// files renamed over meta.json). Vim's write test, the file 4913 (or the
// next number vim tries: 4913 + 123k), is one too. They live in memory
// (bounded: maxScratchFiles of maxScratchSize) and are gone at unmount.
func isEditorTemp(name string) bool {
	rest := name
	for _, mark := range []string{".#", "#", "."} {
		if strings.HasPrefix(rest, mark) {
			rest = rest[len(mark):]
			break
		}
	}
	for _, e := range editable {
		if strings.HasPrefix(rest, e) {
			return true
		}
	}
	k, err := strconv.Atoi(name)
	return err == nil && strconv.Itoa(k) == name && k >= 4913 && (k-4913)%123 == 0
}

// isGenerated reports whether name is one of the files sessfs makes.
func isGenerated(name string) bool {
	switch name {
	case "meta.json", "usage.json", "branches", "branches.txt":
		return true
	}
	for _, f := range branchFiles {
		if f.name == name {
			return true
		}
	}
	return false
}

// scratchNode is an editor's temporary: a file (scratchFile) or a
// symbolic link (scratchLink).
type scratchNode interface {
	fs.InodeEmbedder
	stable() fs.StableAttr
}

// scratchIno is a new inode number for an editor's temporary: a new file
// of an old name is a new inode.
func (f *FS) scratchIno() uint64 {
	return ino(kindScratch, f.space+strconv.FormatUint(f.scratchSeq.Add(1), 10))
}

// scratchSet holds one session folder's temporaries by name. It belongs to
// the session (FS.scratchOf), not to a node the kernel may forget. A nil
// set is a session's with none.
type scratchSet struct {
	mu    sync.Mutex
	nodes map[string]scratchNode
}

// temps is the session's set of temporaries; see FS.scratchOf.
func (n *sessionDir) temps(create bool) *scratchSet { return n.fsys.scratchOf(n.s.ID(), create) }

func (s *scratchSet) get(name string) scratchNode {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nodes[name]
}

// entries lists the temporaries, by name.
func (s *scratchSet) entries() []fuse.DirEntry {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []fuse.DirEntry
	for name, n := range s.nodes {
		a := n.stable()
		out = append(out, entry(name, a.Mode, a.Ino))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// create adds the node newNode makes for name, or returns the one there
// with EEXIST, or fails with ENOSPC when the folder holds too many.
func (s *scratchSet) create(name string, newNode func() scratchNode) (scratchNode, syscall.Errno) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := s.nodes[name]; n != nil {
		return n, syscall.EEXIST
	}
	if len(s.nodes) >= maxScratchFiles {
		return nil, syscall.ENOSPC
	}
	if s.nodes == nil {
		s.nodes = map[string]scratchNode{}
	}
	n := newNode()
	s.nodes[name] = n
	return n, 0
}

// remove takes name out of the set, and gives back what it held.
func (s *scratchSet) remove(name string) bool {
	n := s.take(name)
	drop(n)
	return n != nil
}

// take takes name out of the set and returns its node, nil if none.
func (s *scratchSet) take(name string) scratchNode {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.nodes[name]
	delete(s.nodes, name)
	return n
}

// move renames from to to, replacing what to held unless noReplace, and
// gives back what the replaced node held.
func (s *scratchSet) move(from, to string, noReplace bool) syscall.Errno {
	if s == nil {
		return syscall.ENOENT
	}
	s.mu.Lock()
	n, old := s.nodes[from], s.nodes[to]
	switch {
	case n == nil:
		s.mu.Unlock()
		return syscall.ENOENT
	case noReplace && old != nil:
		s.mu.Unlock()
		return syscall.EEXIST
	}
	s.nodes[to] = n
	delete(s.nodes, from)
	s.mu.Unlock()
	if old != n {
		drop(old)
	}
	return 0
}

// drop gives back what a node that left the set holds (nil: none).
func drop(n scratchNode) {
	if f, ok := n.(*scratchFile); ok {
		f.drop()
	}
}

// The session folder's side of the temporaries.

var (
	_ = (fs.NodeCreater)((*sessionDir)(nil))
	_ = (fs.NodeSymlinker)((*sessionDir)(nil))
	_ = (fs.NodeRenamer)((*sessionDir)(nil))
	_ = (fs.NodeUnlinker)((*sessionDir)(nil))
)

// newName checks a name for a new temporary.
func (n *sessionDir) newName(ctx context.Context, name string) syscall.Errno {
	if errno := n.fsys.changeable(ctx, n.s); errno != 0 {
		return errno
	}
	switch {
	case isGenerated(name):
		return syscall.EEXIST
	case len(name) > 255:
		return syscall.ENAMETOOLONG
	case !isEditorTemp(name):
		return syscall.EPERM
	}
	return 0
}

func (n *sessionDir) Create(ctx context.Context, name string, flags uint32, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	if errno := n.newName(ctx, name); errno != 0 {
		return nil, nil, 0, errno
	}
	f, errno := n.temps(true).create(name, func() scratchNode { return newScratchFile(n.fsys, n.s) })
	if _, isFile := f.(*scratchFile); errno == syscall.EEXIST && isFile && flags&syscall.O_EXCL == 0 {
		errno = 0 // open(O_CREAT) of a file made meanwhile opens it
	}
	if errno != 0 {
		return nil, nil, 0, errno
	}
	in := n.NewInode(ctx, f, f.stable())
	if errno := lookupAttr(ctx, in, out); errno != 0 {
		return nil, nil, 0, errno
	}
	return in, nil, fuse.FOPEN_DIRECT_IO, 0
}

// Symlink makes emacs's lock, .#meta.json -> user@host.pid; other links
// are refused (EPERM).
func (n *sessionDir) Symlink(ctx context.Context, target, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if errno := n.newName(ctx, name); errno != 0 {
		return nil, errno
	}
	l, errno := n.temps(true).create(name, func() scratchNode { return newScratchLink(n.fsys, target) })
	if errno != 0 {
		return nil, errno
	}
	in := n.NewInode(ctx, l, l.stable())
	return in, lookupAttr(ctx, in, out)
}

func (n *sessionDir) Unlink(ctx context.Context, name string) syscall.Errno {
	if errno := n.fsys.changeable(ctx, n.s); errno != 0 {
		return errno
	}
	if n.temps(false).remove(name) {
		return 0
	}
	if isGenerated(name) {
		return syscall.EPERM
	}
	return syscall.ENOENT
}

// Rename moves temporaries among their names; onto meta.json, tasks.json
// or memory.json one replaces the document if it is valid (else EINVAL and
// nothing changes).
// Generated files do not move, and a temporary does not become a file of
// its own name: it would vanish at unmount.
func (n *sessionDir) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	if errno := n.fsys.changeable(ctx, n.s); errno != 0 {
		return errno
	}
	f := n.temps(false).get(name)
	if f == nil || newParent.EmbeddedInode() != &n.Inode || flags&fs.RENAME_EXCHANGE != 0 {
		if f == nil && !isGenerated(name) {
			return syscall.ENOENT
		}
		return syscall.EPERM
	}
	switch {
	case n.editDoc(newName) != nil:
		file, ok := f.(*scratchFile)
		if !ok {
			return syscall.EPERM
		}
		doc := n.editDoc(newName)
		if err := doc.save(file.content()); err != nil {
			return n.fsys.toErrno(err)
		}
		n.temps(false).take(name)
		if shown, _, err := doc.read(); err == nil {
			file.settle(shown)
		} else {
			file.drop()
		}
		// The kernel now maps the name to the scratch inode; make it
		// look the name up again. Not from inside this call: the kernel
		// holds the folder's lock until the rename returns.
		go n.NotifyEntry(newName)
		return 0
	case isGenerated(newName), !isEditorTemp(newName):
		return syscall.EPERM
	}
	return n.temps(false).move(name, newName, flags&unix.RENAME_NOREPLACE != 0)
}

// editDoc is the document the file name of the session folder edits, or
// nil if it is none of editable.
func (n *sessionDir) editDoc(name string) editDoc {
	switch name {
	case "meta.json":
		return metaDoc{n.s}
	case "tasks.json":
		return branchDoc{ref: branchRef{s: n.s}, kind: backing.DocTasks}
	case "memory.json":
		return branchDoc{ref: branchRef{s: n.s}, kind: backing.DocMemory}
	}
	return nil
}
