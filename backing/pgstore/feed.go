package pgstore

import (
	"sync"
	"sync/atomic"

	"github.com/sessfs/sessfs/backing"
)

// The change feed (backing.Subscription). This process's changes are told
// by the calls that make them, once their transaction committed. Other
// writers' changes come from the changes table: a listener (listen.go)
// wakes on a NOTIFY, or every pollInterval should one be lost, and reads
// the rows past the last revision it saw.

// notifyChannel is the channel every change is notified on. The payload,
// "<revision> <origin>", is a hint, never needed: a listener that sees the
// next revision is its own process's change has nothing to read.
const notifyChannel = "sessfs_changes"

// notifyPayload is the payload's SQL, over a change row's revision and
// origin.
const notifyPayload = `revision::text || ' ' || origin::text`

// feed is a store's subscribers and what they follow.
type feed struct {
	mu    sync.Mutex
	subs  map[*subscription]struct{}
	stopc chan struct{} // closed to stop the listener; nil when none runs
	done  chan struct{} // closed when the listener has stopped
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
		f.subs = map[*subscription]struct{}{}
	}
	f.subs[sub] = struct{}{}
	if f.stopc == nil {
		// From the revision the database is at now: a change made after
		// Subscribe returns is reported, none made before.
		f.stopc, f.done = make(chan struct{}), make(chan struct{})
		l := &listener{st: st, stop: f.stopc, done: f.done}
		l.start()
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
}

func (sub *subscription) Close() {
	f := &sub.st.feed
	f.mu.Lock()
	defer f.mu.Unlock()
	if sub.closed.Swap(true) {
		return
	}
	delete(f.subs, sub)
	sub.follow = nil
	if len(f.subs) == 0 && f.stopc != nil {
		// Nobody listens: the listener and its connection go. Its
		// goroutine may still be finishing a catch-up; done says when.
		close(f.stopc)
		f.stopc = nil
	}
}

// stop stops the listener, if one runs, and waits for it.
func (f *feed) stop() {
	f.mu.Lock()
	stopc, done := f.stopc, f.done
	if stopc != nil {
		close(stopc)
		f.stopc = nil
	}
	f.mu.Unlock()
	if done != nil {
		<-done
	}
}

// publish tells every subscriber of this process's changes, once what
// the sessions kept of their rows is dropped. The caller holds no lock of
// the store: a subscriber may read the store from its function.
func (st *Store) publish(cs ...backing.Change) {
	for _, c := range cs {
		st.rowsChanged(c.Session)
	}
	st.notify(cs...)
}

// notify tells every subscriber of this process's changes, what is kept
// of the rows already brought up to date.
func (st *Store) notify(cs ...backing.Change) {
	if len(cs) == 0 {
		return
	}
	f := &st.feed
	f.mu.Lock()
	subs := make([]*subscription, 0, len(f.subs))
	for sub := range f.subs {
		subs = append(subs, sub)
	}
	f.mu.Unlock()
	for _, c := range cs {
		for _, sub := range subs {
			if !sub.closed.Load() {
				sub.fn(c)
			}
		}
	}
}

// deliver tells the subscribers of another writer's change: a change of
// names to all, one inside a session to those that follow it.
func (st *Store) deliver(c backing.Change) {
	st.rowsChanged(c.Session)
	f := &st.feed
	f.mu.Lock()
	var subs []*subscription
	for sub := range f.subs {
		if c.Kind == backing.NamesChanged || sub.follow[c.Session] > 0 {
			subs = append(subs, sub)
		}
	}
	f.mu.Unlock()
	for _, sub := range subs {
		if !sub.closed.Load() {
			sub.fn(c)
		}
	}
}

// followed is the sessions some subscriber follows.
func (f *feed) followed() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	seen := map[string]bool{}
	var out []string
	for sub := range f.subs {
		for id := range sub.follow {
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}
