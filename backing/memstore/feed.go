package memstore

import "github.com/sessfs/sessfs/backing"

// The change feed: every change is this process's, made by a call of the
// store and reported by that call (Store.do); there is no other writer to
// follow, so Follow has nothing to start.

// Subscribe calls fn with every change to the store; see backing.Store.
func (st *Store) Subscribe(fn func(backing.Change)) backing.Subscription {
	return st.feed.Subscribe(fn)
}
