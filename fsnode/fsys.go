package fsnode

import (
	"context"
	"fmt"
	"log"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/sessfs/sessfs/backing"
)

// Options configure a mount.
type Options struct {
	ReadOnly   bool
	AllowOther bool
	Debug      bool
	FsName     string // shown in /proc/mounts; the store path by default
	// MaxBuffered bounds the bytes the mount's open files hold in memory
	// together (text and unterminated lines written to append, meta.json
	// edits, editors' temporaries); a write past it fails with ENOSPC. 0:
	// DefaultMaxBuffered.
	MaxBuffered int64
	// Tmp keeps the ephemeral sessions of MOUNT/tmp/: a store in the
	// mount's memory (backing/memstore) that must also be a
	// backing.Remover, so that rmdir and a move into the store drop a
	// session. nil: no tmp/.
	Tmp backing.Store
	// FileHistory reads the agents' own file histories, for
	// turns/<n>/files/ (backing.Snapshots); nil: sessfs's snapshots only.
	FileHistory backing.AgentFileHistory
	// MaxRemembered is how many session folders the kernel is left to
	// remember, those looked up last (remembered.go). 0:
	// DefaultMaxRemembered.
	MaxRemembered int
}

// FS is what every node of one mount shares: the store, the options and the
// caches of rendered sizes.
type FS struct {
	st   backing.Store
	opts Options
	uid  uint32
	gid  uint32
	// space names whose sessions this FS shows, for their inode numbers
	// (FS.inoID): "" for the store's, tmpName for tmp/'s.
	space string
	tmp   *FS // the FS of tmp/'s sessions (Options.Tmp); nil without

	appendGen  atomic.Uint64 // the generation of the last append node: see branchFile
	scratchSeq atomic.Uint64 // the number of the last editor's temporary: see scratchIno
	budget     *budget       // what open handles may hold in memory: see buffer.go

	flushMu sync.Mutex // held by a flush of stale renderings: see live.go

	mu           sync.Mutex
	sizes        map[sizeKey]*sizeCache
	sizeEntries  int                                   // the offsets all of sizes hold: see usedSizes
	sizeBound    int                                   // how many they may hold: maxSizeEntries
	sizeTick     uint64                                // counts uses of sizes, for their order of use
	live         map[string]map[*renderedFile]struct{} // by branch key: see live.go
	liveSessions map[string]int                        // by session id: how many renderings it has in live
	sub          backing.Subscription                  // to the change feed, while live has renderings
	opened       map[string]int                        // by session id: its open renderings, followed in sub
	kick         chan struct{}                         // wakes the flusher: see live.go
	stale        map[string]bool                       // branch keys, or "<session>/" for all of one, to tell
	scratch      map[string]*scratchSet                // by session id
	reported     map[string]bool                       // damage already logged: see firstReport
	big          bigPiece                              // the one piece kept between reads: see bigPiece

	remembered rememberedSessions // the session folders the kernel is left to remember: see remembered.go
}

// New makes the root of a mount of st.
func New(st backing.Store, opts Options) *Root {
	if opts.MaxBuffered <= 0 {
		opts.MaxBuffered = DefaultMaxBuffered
	}
	if opts.MaxRemembered <= 0 {
		opts.MaxRemembered = DefaultMaxRemembered
	}
	f := newFS(st, opts, "", &budget{max: opts.MaxBuffered})
	if opts.Tmp != nil {
		// Its own caches and change feed, the mount's budget: what open
		// files hold is bounded for the whole mount.
		f.tmp = newFS(opts.Tmp, opts, tmpName, f.budget)
	}
	return &Root{base: base{fsys: f}}
}

// newFS is the state the nodes of the sessions of st share, in space
// (see FS.space).
func newFS(st backing.Store, opts Options, space string, b *budget) *FS {
	return &FS{st: st, opts: opts, uid: uint32(os.Getuid()), gid: uint32(os.Getgid()), space: space, budget: b,
		sizes: map[sizeKey]*sizeCache{}, sizeBound: maxSizeEntries, live: map[string]map[*renderedFile]struct{}{}, liveSessions: map[string]int{}, opened: map[string]int{}, scratch: map[string]*scratchSet{}, reported: map[string]bool{}}
}

// Timeouts. The mount's defaults are zero, no caching, and each node says
// what it may cache: go-fuse puts the default in wherever a node leaves a
// timeout zero, and the kernel keeps even a 1 ns timeout for a whole clock
// tick, long enough for a stat right after an append to see the old size.
// Names are cached for a second (lookupAttr); the attributes of folders
// (dirAttr) and of renderings for half a second, which an append through
// this mount refreshes as the change feed reports (live.go). Half: a
// rendering that is not open hears of another writer's change at its next
// stat after that, and a line an agent writes must show within a second
// of it (sync --watch), the import taking the rest. Other files are never
// cached.
const (
	entryTimeout = time.Second
	attrTimeout  = 500 * time.Millisecond
)

// MountOptions are the go-fuse options for a mount of the store.
func MountOptions(st backing.Store, opts Options) *fs.Options {
	var et, at, nt time.Duration // zero: see the timeouts above
	name := opts.FsName
	if name == "" {
		name = st.Location()
	}
	o := &fs.Options{
		EntryTimeout:    &et,
		AttrTimeout:     &at,
		NegativeTimeout: &nt,
		MountOptions: fuse.MountOptions{
			FsName:        name,
			Name:          "sessfs",
			AllowOther:    opts.AllowOther,
			Debug:         opts.Debug,
			DisableXAttrs: true,
			// Renderings grow at their end: the mount drops the stale
			// pages itself (renderedFile.changed) instead of the
			// kernel dropping every cached page at each size change.
			ExplicitDataCacheControl: true,
			// root calls mount(2) itself; others go through fusermount3.
			// (The writeback cache stays off, go-fuse's default: a write
			// to append must fail with its own error, once durable.)
			DirectMount:        os.Getuid() == 0,
			MaxWrite:           1 << 20,
			MaxReadAhead:       1 << 20,
			DisableReadDirPlus: false,
		},
		UID:    uint32(os.Getuid()),
		GID:    uint32(os.Getgid()),
		Logger: log.New(os.Stderr, "sessfs: ", 0),
	}
	if opts.ReadOnly {
		o.MountOptions.Options = append(o.MountOptions.Options, "ro")
	}
	return o
}

// attr fills the ownership and times common to every node.
func (f *FS) attr(out *fuse.Attr, mode uint32, size int64, mtime time.Time) {
	out.Mode = mode
	out.Size = uint64(size)
	out.Blocks = (uint64(size) + 511) / 512
	out.Uid, out.Gid = f.uid, f.gid
	out.Nlink = 1
	if mode&syscall.S_IFDIR != 0 {
		out.Nlink = 2
	}
	if mtime.IsZero() {
		mtime = time.Unix(0, 0)
	}
	out.SetTimes(&mtime, &mtime, &mtime)
}

// dirAttr fills a folder's attributes, cached for attrTimeout.
func (f *FS) dirAttr(out *fuse.AttrOut, mtime time.Time) {
	f.attr(&out.Attr, dirMode, 0, mtime)
	out.SetTimeout(attrTimeout)
}

// writable refuses changes on a read-only mount (EROFS), and changes
// asked by anyone but the user who mounted (EACCES): with -o allow_other
// other users may read, and only read. Every change starts here (open for
// writing, mkdir, create, symlink, rename, rmdir, unlink, setattr); a
// write goes through a handle this allowed to open, as on any file, so a
// user may still hand another an open append. The mount does not enforce
// the modes it shows (no default_permissions), which would also hold the
// mounting user to them (append is 0200, yet reads as empty) and let root
// through.
func (f *FS) writable(ctx context.Context) syscall.Errno {
	if f.opts.ReadOnly {
		return syscall.EROFS
	}
	if c, ok := fuse.FromContext(ctx); ok && c.Uid != f.uid {
		return syscall.EACCES
	}
	return 0
}

// changeable refuses changes to session s where writable does, and to a
// session in the trash, which is read-only until restored: EROFS, where
// the change starts (open for writing, mkdir, create, rename), not only
// when the store refuses it at the commit (backing.ErrTrashed, EROFS too,
// which still decides a race with a trash or restore). A session whose
// meta.json cannot be read is not refused here: the store decides.
func (f *FS) changeable(ctx context.Context, s backing.Session) syscall.Errno {
	if errno := f.writable(ctx); errno != 0 {
		return errno
	}
	if s.Trashed() {
		return syscall.EROFS
	}
	return 0
}

// statfs reports the store's filesystem, with the name limit of sessfs.
func (f *FS) statfs(out *fuse.StatfsOut) syscall.Errno {
	sp, err := f.st.Space()
	if err != nil {
		return f.toErrno(err)
	}
	out.Bsize, out.Frsize = sp.BlockSize, sp.BlockSize
	out.Blocks, out.Bfree, out.Bavail = sp.Blocks, sp.BlocksFree, sp.BlocksAvail
	out.Files, out.Ffree = sp.Files, sp.FilesFree
	out.NameLen = backing.MaxNameLen
	return 0
}

// isWrite reports whether open flags ask for writing.
func isWrite(flags uint32) bool {
	return flags&syscall.O_ACCMODE != syscall.O_RDONLY
}

// reportDamage logs, once each, the stored lines of session s that a
// view of it skipped, not being messages: the mount serves the rest, and
// the log says what it skipped and that fsck can tell more.
func (f *FS) reportDamage(s backing.Session, v backing.View) {
	for _, p := range v.Problems() {
		if f.firstReport(fmt.Sprintf("%s/%s@%d", s.ID(), p.Branch, p.Offset)) {
			log.Printf("sessfs: session %s, branch %s: line %d skipped, not a message: %v (see sessfs fsck)", s.ID(), p.Branch, p.Line, p.Err)
		}
	}
}

// reportBadBranches logs, once a mount, each branch file of s that the
// listing leaves out (backing.BadBranches): the good branches are listed,
// and the log says why one is missing.
func (f *FS) reportBadBranches(s backing.Session) {
	bad, _ := s.BadBranches()
	for _, b := range bad {
		if f.firstReport(s.ID() + "/branch/" + b.ID) {
			log.Printf("sessfs: session %s: branch file %s.json left out: %v (see sessfs fsck)", s.ID(), b.ID, b.Err)
		}
	}
}

// firstReport reports whether key, a piece of damage (a line that is no
// message, a branch file left out, a symbolic link refused), is logged
// for the first time on this mount, and marks it logged: the log says
// each once, however many requests meet it.
func (f *FS) firstReport(key string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.reported[key] {
		return false
	}
	f.reported[key] = true
	return true
}

// Held reports what the mount holds in memory for what it has shown: the
// entries of its caches (piece sizes and the offsets they hold, live renderings, their sessions,
// editors' temporaries by session, damage logged, the kept big piece:
// none or one, each summed over the root's sessions and tmp/'s) and the
// nodes of its tree, and the bytes its open files buffer. Tests check that these go
// back to where they were once what made them is gone.
func (r *Root) Held() map[string]int {
	held := map[string]int{}
	for _, f := range []*FS{r.fsys, r.fsys.tmp} { // tmp/'s sessions have caches of their own
		if f != nil {
			f.addHeld(held)
		}
	}
	held["nodes"] = nodes(&r.Inode)
	held["buffered"] = int(r.fsys.budget.inUse()) // one budget for both
	return held
}

// addHeld adds what f's caches hold to held.
func (f *FS) addHeld(held map[string]int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	held["sizes"] += len(f.sizes)
	held["sizeEntries"] += f.sizeEntries
	held["live"] += len(f.live)
	held["liveSessions"] += len(f.liveSessions)
	held["scratch"] += len(f.scratch)
	held["reported"] += len(f.reported)
	held["remembered"] += f.rememberedCount()
	if f.big.piece != nil {
		held["bigPiece"]++
	}
}

func nodes(in *fs.Inode) int {
	n := 1
	for _, c := range in.Children() {
		n += nodes(c)
	}
	return n
}
