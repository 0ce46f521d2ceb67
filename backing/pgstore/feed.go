package pgstore

import (
	"sync"

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

// feed is a store's subscribers and its listener, which runs while
// anyone subscribes.
type feed struct {
	backing.Subscribers

	mu    sync.Mutex    // guards stopc and done; taken inside the Subscribers' lock
	stopc chan struct{} // closed to stop the listener; nil when none runs
	done  chan struct{} // closed when the listener has stopped
}

// Subscribe calls fn with every change to the store; see backing.Store.
func (st *Store) Subscribe(fn func(backing.Change)) backing.Subscription {
	return st.feed.Subscribe(fn)
}

// hookFeed sets the hooks that run the listener while anyone
// subscribes.
func (st *Store) hookFeed() {
	f := &st.feed
	f.Started = func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		// From the revision the database is at now: a change made after
		// Subscribe returns is reported, none made before.
		f.stopc, f.done = make(chan struct{}), make(chan struct{})
		l := &listener{st: st, stop: f.stopc, done: f.done}
		l.start()
	}
	f.Stopped = func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		// Nobody listens: the listener and its connection go. Its
		// goroutine may still be finishing a catch-up; done says when.
		if f.stopc != nil {
			close(f.stopc)
			f.stopc = nil
		}
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
	st.feed.Publish(cs...)
}

// deliver tells the subscribers of another writer's change, once what
// the session kept of its rows is dropped.
func (st *Store) deliver(c backing.Change) {
	st.rowsChanged(c.Session)
	st.feed.Deliver(c)
}
