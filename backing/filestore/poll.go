package filestore

import (
	"strings"
	"syscall"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// pollInterval is how often the poller looks for other writers' changes:
// well within the second the contract allows, for a few stats a look.
const pollInterval = 200 * time.Millisecond

// stamp is what a stat says of a file or folder that tells a change: a
// log grows, meta.json is replaced (a new inode), a folder's entries
// change its mtime.
type stamp struct {
	ino   uint64
	size  int64
	mtime time.Time
}

func stampOf(path string) stamp {
	fi, err := stat(path)
	if err != nil {
		return stamp{}
	}
	var ino uint64
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		ino = st.Ino
	}
	return stamp{ino: ino, size: fi.Size(), mtime: fi.ModTime()}
}

// racy reports whether a change in the same clock tick as this stamp's
// mtime could leave it as it is (see branchCache): such a folder is
// reported again at the next look, in case.
func (s stamp) racy(seen time.Time) bool { return seen.Sub(s.mtime) < racyWindow }

// sessionStamps is what the poller last saw of a followed session.
type sessionStamps struct {
	seen           time.Time // when the stats were made
	meta, branches stamp
	logs           map[string]stamp // by branch id
}

// poll runs while the store has subscribers (until stop is closed),
// reporting what changed between two looks. Its first look at the names
// only records them; a session is first looked at when it is followed.
func (st *Store) poll(stop chan struct{}) {
	f := &st.feed
	names := map[string]stamp{}
	racy := map[string]bool{}
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	for first := true; ; first = false {
		f.mu.Lock()
		old := make(map[string]*sessionStamps, len(f.stamps))
		for id, s := range f.stamps {
			old[id] = s
		}
		f.mu.Unlock()

		var changes []backing.Change
		now := time.Now()
		for _, dir := range []string{"names", "archive", "trash"} {
			s := stampOf(st.path(dir))
			if !first && (s != names[dir] || racy[dir]) {
				changes = append(changes, backing.Change{Kind: backing.NamesChanged})
			}
			names[dir], racy[dir] = s, s.racy(now)
		}
		cur := make(map[string]*sessionStamps, len(old))
		for id, o := range old {
			s := st.handle(id)
			cur[id] = s.stamps()
			changes = append(changes, s.changedSince(o, cur[id])...)
		}
		f.mu.Lock()
		for id, c := range cur {
			if f.stamps[id] == old[id] { // still followed, and not afresh
				f.stamps[id] = c
			}
		}
		f.mu.Unlock()
		st.feed.Publish(changes...)
		select {
		case <-stop:
			return
		case <-t.C:
		}
	}
}

// stamps looks at what the session keeps: meta.json, the branches
// folder, and each branch's log.
func (s *Session) stamps() *sessionStamps {
	out := &sessionStamps{seen: time.Now(), meta: stampOf(s.path("meta.json")), branches: stampOf(s.path("branches")), logs: map[string]stamp{}}
	if ents, err := readDir(s.path("logs")); err == nil {
		for _, e := range ents {
			if id, ok := strings.CutSuffix(e.Name(), ".jsonl"); ok && !isTemp(e.Name()) {
				out.logs[id] = stampOf(s.path("logs", e.Name()))
			}
		}
	}
	return out
}

// changedSince lists the changes between two looks at the session.
func (s *Session) changedSince(old, cur *sessionStamps) []backing.Change {
	var out []backing.Change
	if cur.meta != old.meta {
		out = append(out, backing.Change{Kind: backing.MetaChanged, Session: s.id})
	}
	if cur.branches != old.branches || old.branches.racy(old.seen) {
		out = append(out, backing.Change{Kind: backing.BranchesChanged, Session: s.id})
	}
	for id, l := range cur.logs {
		// A log that is new since (a fork's) counts from empty.
		if o := old.logs[id]; o != l && (o != stamp{} || l.size > 0) {
			if c, ok := s.appendedChange(id); ok {
				out = append(out, c)
			}
		}
	}
	return out
}
