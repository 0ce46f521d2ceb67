package filestore

import (
	"sync"
	"sync/atomic"

	"github.com/sessfs/sessfs/backing"
)

// The change feed (backing.Subscription). This process's own changes are
// published by the calls that make them (changes.go), once the store's
// locks are let go. Other writers' changes are found by a poller
// (poll.go) that stats, every pollInterval, the names folders and what
// the followed sessions keep: no inotify instance or watch per session,
// which the kernel limits, and a store on a network filesystem works the
// same.

// feed is a store's subscribers and what they follow.
type feed struct {
	mu      sync.Mutex
	subs    map[*subscription]struct{}
	follow  map[string]int            // session id → Follow calls not undone
	stamps  map[string]*sessionStamps // of each followed session: what was last seen
	polling bool                      // a poller runs (it stops when subs is empty)
}

type subscription struct {
	st     *Store
	fn     func(backing.Change)
	closed atomic.Bool
	follow map[string]int // guarded by st.feed.mu
}

var _ backing.Subscription = (*subscription)(nil)

// Subscribe calls fn with every change to the store; see backing.Store.
func (st *Store) Subscribe(fn func(backing.Change)) backing.Subscription {
	sub := &subscription{st: st, fn: fn, follow: map[string]int{}}
	f := &st.feed
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.subs == nil {
		f.subs, f.follow, f.stamps = map[*subscription]struct{}{}, map[string]int{}, map[string]*sessionStamps{}
	}
	f.subs[sub] = struct{}{}
	if !f.polling {
		f.polling = true
		go st.poll()
	}
	return sub
}

func (sub *subscription) Follow(id string) {
	f := &sub.st.feed
	f.mu.Lock()
	defer f.mu.Unlock()
	if sub.closed.Load() {
		return
	}
	sub.follow[id]++
	f.follow[id]++
	if f.follow[id] == 1 {
		// What the session is now: a change from here on is reported,
		// however soon the next poll.
		f.stamps[id] = sub.st.handle(id).stamps()
	}
}

func (sub *subscription) Unfollow(id string) {
	f := &sub.st.feed
	f.mu.Lock()
	defer f.mu.Unlock()
	if sub.follow[id] == 0 {
		return
	}
	sub.follow[id]--
	if sub.follow[id] == 0 {
		delete(sub.follow, id)
	}
	f.unfollow(id, 1)
}

func (sub *subscription) Close() {
	f := &sub.st.feed
	f.mu.Lock()
	defer f.mu.Unlock()
	if sub.closed.Swap(true) {
		return
	}
	delete(f.subs, sub)
	for id, n := range sub.follow {
		f.unfollow(id, n)
	}
	sub.follow = nil
}

// unfollow undoes n Follow calls of id; the caller holds f.mu.
func (f *feed) unfollow(id string, n int) {
	f.follow[id] -= n
	if f.follow[id] <= 0 {
		delete(f.follow, id)
		delete(f.stamps, id)
	}
}

// subscribers is who to tell of a change now; nil when nobody listens,
// the common case, which then costs no more than this.
func (st *Store) subscribers() []*subscription {
	f := &st.feed
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.subs) == 0 {
		return nil
	}
	out := make([]*subscription, 0, len(f.subs))
	for sub := range f.subs {
		out = append(out, sub)
	}
	return out
}

// publish tells every subscriber of c. The caller holds no lock of the
// store: a subscriber may read the store from its function.
func publish(subs []*subscription, c backing.Change) {
	for _, sub := range subs {
		if !sub.closed.Load() {
			sub.fn(c)
		}
	}
}
