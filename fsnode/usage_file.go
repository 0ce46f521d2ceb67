package fsnode

import (
	"context"
	"encoding/json"
	"sync"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/sessfs/sessfs/backing"
)

// usageFile is usage.json, read-only: what a session spent (every branch,
// each message once), a branch (its view, ancestry resolved) or a turn,
// as backing.UsageDoc. Like info.json it is made at each stat and read,
// so its size is exact and the kernel caches none of it; what it has
// read of the store it keeps (backing.SessionUsage, ViewUsage), so a stat
// of a session's or a branch's reads only what was stored since the last.
type usageFile struct {
	base
	s     backing.Session
	scope usageScope
	ref   branchRef // the branch, for usageBranch and usageTurn
	turn  int       // for usageTurn, 1-based
	clock turnClock // for usageTurn: the turn's time, as its folder's

	mu      sync.Mutex // over session and view, which one file's stats share
	session backing.SessionUsage
	view    backing.ViewUsage
}

type usageScope int

const (
	usageSession usageScope = iota
	usageBranch
	usageTurn
)

var (
	_ = (fs.NodeGetattrer)((*usageFile)(nil))
	_ = (fs.NodeOpener)((*usageFile)(nil))
	_ = (fs.NodeReader)((*usageFile)(nil))
	_ = (fs.NodeSetattrer)((*usageFile)(nil))
)

func (n *usageFile) doc() ([]byte, time.Time, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	var usage backing.ModelUsage
	var mtime time.Time
	switch n.scope {
	case usageSession:
		if err := n.session.Update(n.s, nil); err != nil {
			return nil, time.Time{}, err
		}
		t, err := n.s.LastAppend()
		if err != nil {
			return nil, time.Time{}, err
		}
		usage, mtime = n.session.Tally().ByModel(), t
	default:
		v, err := n.ref.view()
		if err != nil {
			return nil, time.Time{}, err
		}
		if n.scope == usageBranch {
			if err := n.view.Update(v, n.metaModel()); err != nil {
				return nil, time.Time{}, err
			}
			usage, mtime = n.view.Tally().ByModel(), v.ModTime()
			if b := v.Branch(); mtime.Before(b.Created) {
				mtime = b.Created
			}
			break
		}
		from, to, err := v.TurnRange(n.turn)
		if err != nil {
			return nil, time.Time{}, err
		}
		t, err := backing.UsageOfRange(v, from, to, n.metaModel())
		if err != nil {
			return nil, time.Time{}, err
		}
		usage, mtime = t.ByModel(), n.clock.turn(v, n.ref, n.turn)
	}
	data, err := json.MarshalIndent(backing.NewUsageDoc(usage), "", "  ")
	return append(data, '\n'), mtime, err
}

// metaModel is the model usage that names none was spent by: the
// session's, when its meta can be read.
func (n *usageFile) metaModel() string {
	m, err := n.s.Meta()
	if err != nil {
		return ""
	}
	return m.Model
}

func (n *usageFile) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	doc, mtime, err := n.doc()
	if err != nil {
		return n.fsys.toErrno(err)
	}
	n.fsys.attr(&out.Attr, fileMode|0o444, int64(len(doc)), mtime)
	return 0
}

func (n *usageFile) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if isWrite(flags) {
		return nil, 0, syscall.EACCES
	}
	return nil, fuse.FOPEN_DIRECT_IO, 0
}

func (n *usageFile) Read(ctx context.Context, fh fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	doc, _, err := n.doc()
	if err != nil {
		return nil, n.fsys.toErrno(err)
	}
	return fuse.ReadResultData(slice(doc, off, len(dest))), 0
}

func (n *usageFile) Setattr(ctx context.Context, fh fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	return syscall.EPERM
}

// usageChild makes the usage.json node under parent; ids are the path's
// immutable ids, as for the other files beside it.
func usageChild(ctx context.Context, parent *fs.Inode, n *usageFile, ids ...string) *fs.Inode {
	kind := kindUsage
	if n.scope == usageTurn {
		kind = kindTurnUsage
	}
	return child(ctx, parent, "usage.json", n, fileMode, ino(kind, ids...))
}
