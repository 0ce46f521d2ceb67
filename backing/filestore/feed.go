package filestore

import (
	"sync"

	"github.com/sessfs/sessfs/backing"
)

// The change feed (backing.Subscription). This process's own changes are
// published by the calls that make them (changes.go), once the store's
// locks are let go. Other writers' changes are found by a poller
// (poll.go) that stats, every pollInterval, the names folders and what
// the followed sessions keep: no inotify instance or watch per session,
// which the kernel limits, and a store on a network filesystem works the
// same.

// feed is a store's subscribers and what the poller last saw of the
// sessions they follow. The poller runs while anyone subscribes.
type feed struct {
	backing.Subscribers

	mu     sync.Mutex                // guards stamps and stop; taken inside the Subscribers' lock
	stamps map[string]*sessionStamps // of each followed session: what was last seen
	stop   chan struct{}             // closed to stop the poller; nil when none runs
}

// Subscribe calls fn with every change to the store; see backing.Store.
func (st *Store) Subscribe(fn func(backing.Change)) backing.Subscription {
	return st.feed.Subscribe(fn)
}

// hookFeed sets the hooks that run the poller while anyone subscribes
// and keep what it compares of each followed session.
func (st *Store) hookFeed() {
	f := &st.feed
	f.stamps = map[string]*sessionStamps{}
	f.Started = func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.stop = make(chan struct{})
		go st.poll(f.stop)
	}
	f.Stopped = func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		close(f.stop)
		f.stop = nil
	}
	f.Followed = func(id string) {
		// What the session is now: a change from here on is reported,
		// however soon the next poll.
		stamps := st.handle(id).stamps()
		f.mu.Lock()
		defer f.mu.Unlock()
		f.stamps[id] = stamps
	}
	f.Unfollowed = func(id string) {
		f.mu.Lock()
		defer f.mu.Unlock()
		delete(f.stamps, id)
	}
}
