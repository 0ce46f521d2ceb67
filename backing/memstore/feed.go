package memstore

import (
	"sync"
	"sync/atomic"

	"github.com/sessfs/sessfs/backing"
)

// feed is the store's subscribers. Every change is this process's, made
// by a call of the store, and reported by that call (Store.do).
type feed struct {
	mu   sync.Mutex
	subs map[*subscription]struct{}
}

type subscription struct {
	f      *feed
	fn     func(backing.Change)
	closed atomic.Bool
}

var _ backing.Subscription = (*subscription)(nil)

// Subscribe calls fn with every change to the store; see backing.Store.
func (st *Store) Subscribe(fn func(backing.Change)) backing.Subscription {
	sub := &subscription{f: &st.feed, fn: fn}
	st.feed.mu.Lock()
	defer st.feed.mu.Unlock()
	if st.feed.subs == nil {
		st.feed.subs = map[*subscription]struct{}{}
	}
	st.feed.subs[sub] = struct{}{}
	return sub
}

// Follow and Unfollow have nothing to do: there is no other writer.
func (sub *subscription) Follow(id string)   {}
func (sub *subscription) Unfollow(id string) {}

func (sub *subscription) Close() {
	sub.f.mu.Lock()
	defer sub.f.mu.Unlock()
	sub.closed.Store(true)
	delete(sub.f.subs, sub)
}

// subscribers is who to tell of a change now.
func (f *feed) subscribers() []*subscription {
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

// publish tells every subscriber still subscribed of c.
func publish(subs []*subscription, c backing.Change) {
	for _, sub := range subs {
		if !sub.closed.Load() {
			sub.fn(c)
		}
	}
}
