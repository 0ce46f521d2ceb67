package fsnode

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"

	"github.com/sessfs/sessfs/backing"
)

// usageDoc is usage.json, a docFile: what a session spent (every branch,
// each message once), a branch (its view, ancestry resolved) or a turn,
// as backing.UsageDoc. What it has read of the store it keeps
// (backing.SessionUsage, ViewUsage), so a stat of a session's or a
// branch's reads only what was stored since the last.
type usageDoc struct {
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

func (n *usageDoc) doc() ([]byte, time.Time, error) {
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
func (n *usageDoc) metaModel() string {
	m, err := n.s.Meta()
	if err != nil {
		return ""
	}
	return m.Model
}

// usageChild makes the usage.json node under parent; ids are the path's
// immutable ids, as for the other files beside it.
func usageChild(ctx context.Context, fsys *FS, parent *fs.Inode, d *usageDoc, ids ...string) *fs.Inode {
	kind := kindUsage
	if d.scope == usageTurn {
		kind = kindTurnUsage
	}
	return child(ctx, parent, "usage.json", &docFile{base: base{fsys: fsys}, doc: d.doc}, fileMode, ino(kind, ids...))
}
