package backing

import (
	"sync"
	"sync/atomic"
)

// Subscribers is the change feed's bookkeeping an engine keeps: who
// subscribed (Store.Subscribe), what each follows, and telling them. An
// engine has one, and finds other writers' changes in its own way while
// anyone listens, through the hooks. Each hook is called with the
// Subscribers' lock held, so the engine sees them in order; a hook must
// not call back into the Subscribers.
type Subscribers struct {
	// Started: the first subscriber came (again). Stopped: the last one
	// closed.
	Started, Stopped func()
	// Followed: session id is followed from now, by some subscription.
	// Unfollowed: by none any more.
	Followed, Unfollowed func(id string)

	mu     sync.Mutex
	subs   map[*subscriber]struct{}
	follow map[string]int // session id → Follow calls not undone, all subscriptions
}

type subscriber struct {
	f      *Subscribers
	fn     func(Change)
	closed atomic.Bool
	follow map[string]int // guarded by f.mu
}

var _ Subscription = (*subscriber)(nil)

// Subscribe adds a subscriber that fn tells of changes (Store.Subscribe).
func (f *Subscribers) Subscribe(fn func(Change)) Subscription {
	sub := &subscriber{f: f, fn: fn, follow: map[string]int{}}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.subs == nil {
		f.subs, f.follow = map[*subscriber]struct{}{}, map[string]int{}
	}
	f.subs[sub] = struct{}{}
	if len(f.subs) == 1 && f.Started != nil {
		f.Started()
	}
	return sub
}

func (sub *subscriber) Follow(id string) {
	f := sub.f
	f.mu.Lock()
	defer f.mu.Unlock()
	if sub.closed.Load() {
		return
	}
	sub.follow[id]++
	if f.follow[id]++; f.follow[id] == 1 && f.Followed != nil {
		f.Followed(id)
	}
}

func (sub *subscriber) Unfollow(id string) {
	f := sub.f
	f.mu.Lock()
	defer f.mu.Unlock()
	if sub.follow[id] == 0 {
		return
	}
	if sub.follow[id]--; sub.follow[id] == 0 {
		delete(sub.follow, id)
	}
	f.unfollow(id, 1)
}

func (sub *subscriber) Close() {
	f := sub.f
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
	if len(f.subs) == 0 && f.Stopped != nil {
		f.Stopped()
	}
}

// unfollow undoes n Follow calls of id. The caller holds f.mu.
func (f *Subscribers) unfollow(id string, n int) {
	if f.follow[id] -= n; f.follow[id] <= 0 {
		delete(f.follow, id)
		if f.Unfollowed != nil {
			f.Unfollowed(id)
		}
	}
}

// Audience is the subscribers a change is told to, as they were when it
// was made.
type Audience []*subscriber

// Now is who to tell of a change made now; nil when nobody listens, the
// common case, which then costs no more than this. An engine takes it
// while it holds its own locks and tells them once it let go.
func (f *Subscribers) Now() Audience {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.subs) == 0 {
		return nil
	}
	out := make(Audience, 0, len(f.subs))
	for sub := range f.subs {
		out = append(out, sub)
	}
	return out
}

// Tell tells every subscriber of a still subscribed of c. The caller
// holds no lock of the store: a subscriber may read the store.
func (a Audience) Tell(c Change) {
	for _, sub := range a {
		if !sub.closed.Load() {
			sub.fn(c)
		}
	}
}

// Publish tells every subscriber of this process's changes cs.
func (f *Subscribers) Publish(cs ...Change) {
	if len(cs) == 0 {
		return
	}
	a := f.Now()
	for _, c := range cs {
		a.Tell(c)
	}
}

// Deliver tells of another writer's change: a change of names to every
// subscriber, one inside a session to those that follow it.
func (f *Subscribers) Deliver(c Change) {
	f.mu.Lock()
	var a Audience
	for sub := range f.subs {
		if c.Kind == NamesChanged || sub.follow[c.Session] > 0 {
			a = append(a, sub)
		}
	}
	f.mu.Unlock()
	a.Tell(c)
}

// FollowedIDs is the sessions some subscriber follows.
func (f *Subscribers) FollowedIDs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, 0, len(f.follow))
	for id := range f.follow {
		out = append(out, id)
	}
	return out
}
