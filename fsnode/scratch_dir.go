package fsnode

import (
	"context"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// scratchSeq numbers scratch files, for their inode numbers.
var scratchSeq atomic.Uint64

// scratchSet holds one session folder's scratch files by name.
type scratchSet struct {
	mu    sync.Mutex
	files map[string]*scratchFile
}

func (s *scratchSet) get(name string) *scratchFile {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.files[name]
}

func (s *scratchSet) names() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for n := range s.files {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// create adds an empty scratch file, or fails when the folder holds too
// many already.
func (s *scratchSet) create(fsys *FS, name string) (*scratchFile, syscall.Errno) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.files == nil {
		s.files = map[string]*scratchFile{}
	}
	if f := s.files[name]; f != nil {
		return f, 0
	}
	if len(s.files) >= maxScratchFiles {
		return nil, syscall.ENOSPC
	}
	seq := strconv.FormatUint(scratchSeq.Add(1), 10)
	f := &scratchFile{base: base{fsys: fsys}, buf: buffer{max: maxScratchSize}, mtime: time.Now(), ino: ino(kindScratch, seq)}
	s.files[name] = f
	return f, 0
}

func (s *scratchSet) remove(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.files[name]
	delete(s.files, name)
	return ok
}

func (s *scratchSet) move(from, to string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[to] = s.files[from]
	delete(s.files, from)
}

// The session folder's side of scratch files.

var (
	_ = (fs.NodeCreater)((*sessionDir)(nil))
	_ = (fs.NodeRenamer)((*sessionDir)(nil))
)

// isGenerated reports whether name is one of the files sessfs makes.
func isGenerated(name string) bool {
	switch name {
	case "meta.json", "branches":
		return true
	}
	for _, f := range branchFiles {
		if f.name == name {
			return true
		}
	}
	return false
}

func (n *sessionDir) Create(ctx context.Context, name string, flags uint32, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	if errno := n.fsys.writable(); errno != 0 {
		return nil, nil, 0, errno
	}
	if isGenerated(name) {
		return nil, nil, 0, syscall.EEXIST
	}
	if len(name) > 255 {
		return nil, nil, 0, syscall.ENAMETOOLONG
	}
	f, errno := n.scratch.create(n.fsys, name)
	if errno != 0 {
		return nil, nil, 0, errno
	}
	in := n.NewInode(ctx, f, fs.StableAttr{Mode: fileMode, Ino: f.ino})
	if errno := lookupAttr(ctx, in, out); errno != 0 {
		return nil, nil, 0, errno
	}
	return in, nil, fuse.FOPEN_DIRECT_IO, 0
}

func (n *sessionDir) Unlink(ctx context.Context, name string) syscall.Errno {
	if n.scratch.remove(name) {
		return 0
	}
	if isGenerated(name) {
		return syscall.EPERM
	}
	return syscall.ENOENT
}

// Rename moves scratch files; onto meta.json one replaces the document if
// it is valid (else EINVAL and nothing changes). Generated files do not
// move.
func (n *sessionDir) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	if errno := n.fsys.writable(); errno != 0 {
		return errno
	}
	f := n.scratch.get(name)
	if f == nil || newParent.EmbeddedInode() != &n.Inode || flags&fs.RENAME_EXCHANGE != 0 {
		if f == nil && !isGenerated(name) {
			return syscall.ENOENT
		}
		return syscall.EPERM
	}
	switch {
	case newName == "meta.json":
		if _, err := n.s.EditMeta(f.content()); err != nil {
			return toErrno(err)
		}
		n.scratch.remove(name)
		// The kernel now maps meta.json to the scratch inode; make it
		// look the name up again. Not from inside this call: the kernel
		// holds the folder's lock until the rename returns.
		go n.NotifyEntry("meta.json")
		return 0
	case isGenerated(newName):
		return syscall.EPERM
	}
	n.scratch.move(name, newName)
	return 0
}
