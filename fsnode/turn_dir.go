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

// turnDir is turns/<n>/: the turn's messages.jsonl, transcript.md,
// usage.json and info.json (turn_info.go), files/ and files.json (the
// files snapshotted before the turn: turn_files.go), and fork/, where
// `mkdir fork/<x>` forks the branch after this turn.
type turnDir struct {
	base
	refusing
	ref   branchRef
	turn  int
	ids   []string
	clock turnClock

	snaps *branchSnapshots // the branch's, shared with the other turns
	ends  *branchEnds      // likewise
}

func (n *turnDir) turnFiles() *turnFiles { return &turnFiles{all: n.snaps, turn: n.turn} }

var (
	_ = (fs.NodeLookuper)((*turnDir)(nil))
	_ = (fs.NodeReaddirer)((*turnDir)(nil))
	_ = (fs.NodeGetattrer)((*turnDir)(nil))
)

func (n *turnDir) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	v, err := n.ref.view()
	if err != nil {
		return n.fsys.toErrno(err)
	}
	if n.turn > v.Turns() {
		return syscall.ENOENT
	}
	n.fsys.dirAttr(out, n.clock.turn(v, n.ref, n.turn))
	return 0
}

// turnClock keeps a node's turn time (turnClock.time), which a stat would
// otherwise read from the turn's last message every time. It is read
// again only when that message is another one (the last turn grew, the
// default branch moved), which for a finished turn it never is.
type turnClock struct {
	mu  sync.Mutex
	end turnEnd
	t   time.Time
	ok  bool // t is the message's; else the branch's time stands in
}

// turnEnd names a turn's last message by what the view's index knows:
// the branch, the message's place (one past it) and its stored length.
type turnEnd struct {
	branch     string
	to, rawLen int
}

// turn is the time of turn k of v, the branch ref names.
func (c *turnClock) turn(v backing.View, ref branchRef, k int) time.Time {
	_, to, err := v.TurnRange(k)
	if err != nil {
		return v.ModTime()
	}
	return c.time(v, ref.key(v), to)
}

// time is the time of the turn of v that ends before message to: the "ts"
// of its last message, events included, so that a turn folder and its
// renderings show when the turn ended (or, while it is the last, its
// latest message). The branch's time stands in when that message has no
// time that parses.
func (c *turnClock) time(v backing.View, branch string, to int) time.Time {
	if to == 0 {
		return v.ModTime()
	}
	end := turnEnd{branch: branch, to: to, rawLen: v.RawLen(to - 1)}
	c.mu.Lock()
	hit, t, ok := c.end == end, c.t, c.ok
	c.mu.Unlock()
	if !hit {
		msgs, err := v.Read(to-1, to)
		if err != nil || len(msgs) != 1 {
			return v.ModTime() // not kept: the next stat tries again
		}
		t, ok = backing.MessageTime(msgs[0].Raw)
		c.mu.Lock()
		c.end, c.t, c.ok = end, t, ok
		c.mu.Unlock()
	}
	if !ok {
		return v.ModTime()
	}
	return t
}

func (n *turnDir) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	return fs.NewListDirStream([]fuse.DirEntry{
		entry("transcript.md", fileMode, ino(kindTurnTranscript, n.ids...)),
		entry("messages.jsonl", fileMode, ino(kindTurnMessages, n.ids...)),
		entry("usage.json", fileMode, ino(kindTurnUsage, n.ids...)),
		entry("info.json", fileMode, ino(kindTurnInfo, n.ids...)),
		entry("files.json", fileMode, ino(kindFilesDoc, n.ids...)),
		entry("files", syscall.S_IFDIR, ino(kindTurnFiles, append(append([]string(nil), n.ids...), "/")...)),
		entry("fork", syscall.S_IFDIR, ino(kindFork, n.ids...)),
	}), 0
}

func (n *turnDir) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	var in *fs.Inode
	switch name {
	case "transcript.md":
		in = child(ctx, &n.Inode, name, newRenderedFile(n.fsys, n.ref, formatMarkdown, n.turn), fileMode, ino(kindTurnTranscript, n.ids...))
	case "messages.jsonl":
		in = child(ctx, &n.Inode, name, newRenderedFile(n.fsys, n.ref, formatJSONL, n.turn), fileMode, ino(kindTurnMessages, n.ids...))
	case "usage.json":
		in = usageChild(ctx, n.fsys, &n.Inode, &usageDoc{s: n.ref.s, scope: usageTurn, ref: n.ref, turn: n.turn}, n.ids...)
	case "info.json":
		d := &turnInfo{ref: n.ref, turn: n.turn, clock: &n.clock, ends: n.ends}
		in = child(ctx, &n.Inode, name, &docFile{base: base{fsys: n.fsys}, doc: d.doc}, fileMode, ino(kindTurnInfo, n.ids...))
	case "files.json":
		in = child(ctx, &n.Inode, name, &docFile{base: base{fsys: n.fsys}, doc: n.turnFiles().doc}, fileMode, ino(kindFilesDoc, n.ids...))
	case "files":
		d := &filesDir{base: base{fsys: n.fsys}, files: n.turnFiles(), dir: "/", ids: n.ids}
		in = child(ctx, &n.Inode, name, d, syscall.S_IFDIR, d.ino(syscall.S_IFDIR, "/"))
	case "fork":
		in = child(ctx, &n.Inode, name, &forkDir{base: base{fsys: n.fsys}, ref: n.ref, turn: n.turn}, syscall.S_IFDIR, ino(kindFork, n.ids...))
	default:
		return nil, syscall.ENOENT
	}
	return in, lookupAttr(ctx, in, out)
}
