package fsnode

import (
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// turnFiles is what turns/<n>/files/ and files.json show: the snapshots
// of turn n (TurnSnapshots) among the branch's (branchSnapshots).
type turnFiles struct {
	all  *branchSnapshots
	turn int
}

func (f *turnFiles) get() (backing.View, []backing.Snapshot, error) {
	v, all, err := f.all.get()
	if err != nil {
		return nil, nil, err
	}
	return v, backing.TurnSnapshots(all, f.turn), nil
}

// branchSnapshots are the snapshots of a branch (backing.Snapshots),
// sessfs's own and, with Options.FileHistory, those an agent's file
// history keeps whose backup is on this machine, shared by the folders of
// its turns (turnsDir). Finding them reads the branch's events; what was
// found is kept until the branch has another line (or the default branch
// moves), so a lookup of each folder of a deep path, or of every turn's
// files.json, reads nothing.
type branchSnapshots struct {
	fsys *FS
	ref  branchRef

	mu    sync.Mutex
	seen  filesKey
	v     backing.View // the view they were read from: their content's
	snaps []backing.Snapshot
}

// filesKey names a branch as of one line: its key, length and last
// line's stored length.
type filesKey struct {
	branch string
	n, raw int
}

func (f *branchSnapshots) get() (backing.View, []backing.Snapshot, error) {
	v, err := f.ref.view()
	if err != nil {
		return nil, nil, err
	}
	key := filesKey{branch: f.ref.key(v), n: v.Len()}
	if key.n > 0 {
		key.raw = v.RawLen(key.n - 1)
	}
	f.mu.Lock()
	if f.v != nil && f.seen == key {
		defer f.mu.Unlock()
		return f.v, f.snaps, nil
	}
	f.mu.Unlock()
	var m backing.Meta
	if f.fsys.opts.FileHistory != nil {
		if m, err = f.ref.s.Meta(); err != nil {
			return nil, nil, err
		}
	}
	snaps, err := backing.Snapshots(v, m, f.fsys.opts.FileHistory)
	if err != nil {
		return nil, nil, err
	}
	f.mu.Lock()
	f.seen, f.v, f.snaps = key, v, snaps
	f.mu.Unlock()
	return v, snaps, nil
}

// find is the snapshot of path that files/ shows (one of a file that
// exists), and whether path is a folder above one.
func (f *turnFiles) find(path string) (snap backing.Snapshot, file, dir bool, v backing.View, err error) {
	v, snaps, err := f.get()
	if err != nil {
		return snap, false, false, nil, err
	}
	for _, s := range snaps {
		switch {
		case !s.Exists:
		case s.Path == path:
			snap, file = s, true
		case strings.HasPrefix(s.Path, strings.TrimSuffix(path, "/")+"/"):
			dir = true
		}
	}
	return snap, file && !dir, dir, v, nil
}

// doc is turns/<n>/files.json: every snapshot of the turn, those of files
// that did not exist too, as a JSON array of backing.Snapshot; its time
// is the latest snapshot's (the branch's without one).
func (f *turnFiles) doc() ([]byte, time.Time, error) {
	v, snaps, err := f.get()
	if err != nil {
		return nil, time.Time{}, err
	}
	if snaps == nil {
		snaps = []backing.Snapshot{}
	}
	mtime := v.ModTime()
	if len(snaps) > 0 {
		mtime = snapTime(v, snaps[len(snaps)-1])
	}
	data, err := json.MarshalIndent(snaps, "", "  ")
	return append(data, '\n'), mtime, err
}

// snapTime is a snapshot's time, the branch's when its line has none.
func snapTime(v backing.View, s backing.Snapshot) time.Time {
	if s.Time.IsZero() {
		return v.ModTime()
	}
	return s.Time
}
