package fsnode

import (
	"strings"

	"github.com/sessfs/sessfs/backing"
)

// The renderings the kernel caches, by branch, and what the store's
// change feed says of them: the one source of the mount's invalidation.
// Their attributes are cached for attrTimeout (a grep over many sessions
// would otherwise cost several round trips per file); a change by any
// writer is told to the kernel as soon as the feed reports it: at once for
// an append through this mount (the write returns after it), within the
// feed's second for the command line or another mount.
//
// Only files whose bytes a change can move are kept: the whole-branch
// renderings, and the rendering of a branch's last turn (an earlier turn
// never changes again). The mount subscribes to the feed while it keeps
// some, and follows (asks for other writers' changes of) the sessions
// whose renderings are open: a reader such as tail -f hears of an append
// at once, and the feed's cost stays with what is read, not with every
// file the kernel remembers (ls -l of 10,000 sessions). A rendering that
// is cached but not open is told at its next stat, attrTimeout at most.
//
// Changes are queued under FS.mu (stale) and told by flush, which holds no
// lock of the mount: a notification waits for the kernel, which may first
// need a request of the same file answered.

// watch records n as a live rendering of the branch named key. The caller
// holds n.mu: FS.mu is taken after a node's lock, never before it.
func (f *FS) watch(key string, n *renderedFile) {
	f.mu.Lock()
	defer f.mu.Unlock()
	set := f.live[key]
	if set == nil {
		set = map[*renderedFile]struct{}{}
		f.live[key] = set
	}
	if _, ok := set[n]; ok {
		return
	}
	set[n] = struct{}{}
	f.liveSessions[n.ref.s.ID()]++
	if f.sub == nil {
		f.sub = f.st.Subscribe(f.onChange)
		f.kick = make(chan struct{}, 1)
		go f.flusher(f.kick)
		for sid := range f.opened {
			f.sub.Follow(sid)
		}
	}
}

// follow records an open rendering of session sid: its changes by other
// writers are asked for while one is open.
func (f *FS) follow(sid string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.opened[sid]++
	if f.opened[sid] == 1 && f.sub != nil {
		f.sub.Follow(sid)
	}
}

// unfollow undoes follow, at the release of the open file.
func (f *FS) unfollow(sid string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.opened[sid]--; f.opened[sid] > 0 {
		return
	}
	delete(f.opened, sid)
	if f.sub != nil {
		f.sub.Unfollow(sid)
	}
}

// unwatch forgets n: a finished turn, or a node the kernel forgot.
func (f *FS) unwatch(key string, n *renderedFile) {
	f.mu.Lock()
	defer f.mu.Unlock()
	set := f.live[key]
	if _, ok := set[n]; !ok {
		return
	}
	delete(set, n)
	if len(set) == 0 {
		delete(f.live, key)
	}
	sid := n.ref.s.ID()
	f.liveSessions[sid]--
	if f.liveSessions[sid] > 0 {
		return
	}
	delete(f.liveSessions, sid)
	if len(f.liveSessions) == 0 { // nothing cached to tell of
		f.sub.Close()
		close(f.kick)
		f.sub, f.kick, f.stale = nil, nil, nil
	}
}

// onChange queues what a change makes stale: the renderings of the branch
// that grew, or all of a session's when its meta or branches changed
// (every rendering's header names them). Another session's changes, and
// the names', touch no live rendering.
func (f *FS) onChange(c backing.Change) {
	key := c.Session + "/" + c.Branch
	switch c.Kind {
	case backing.Appended:
	case backing.MetaChanged, backing.BranchesChanged:
		key = c.Session + "/"
	default:
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.kick == nil || f.liveSessions[c.Session] == 0 {
		return
	}
	if f.stale == nil {
		f.stale = map[string]bool{}
	}
	f.stale[key] = true
	select {
	case f.kick <- struct{}{}:
	default: // a flush is due already
	}
}

// flusher tells the kernel of what the feed reported, on the feed's time.
func (f *FS) flusher(kick <-chan struct{}) {
	for range kick {
		f.flush()
	}
}

// flush tells the kernel the new size of every rendering queued as stale.
// An append through this mount calls it before its write returns, so that
// a stat then sees the new size; the flusher calls it for the others.
// Flushes take turns (flushMu, which no request of the kernel's takes): a
// flush returns only after what was queued when it began has been told,
// by it or by the flush under way.
func (f *FS) flush() {
	f.flushMu.Lock()
	defer f.flushMu.Unlock()
	type live struct {
		key string
		n   *renderedFile
	}
	f.mu.Lock()
	stale := f.stale
	f.stale = nil
	var files []live
	for key, set := range f.live {
		sid, _, _ := strings.Cut(key, "/")
		if stale[key] || stale[sid+"/"] {
			for n := range set {
				files = append(files, live{key, n})
			}
		}
	}
	f.mu.Unlock()
	for _, l := range files {
		n := l.n
		sp, err := n.span(true)
		if err != nil {
			continue
		}
		n.changed(sp)
		// A turn the change finished (one write can end it and start
		// the next) has just been told its last size: it will not grow
		// again.
		if n.turn > 0 && n.turn < sp.v.Turns() {
			f.unwatch(l.key, n)
		}
	}
}
