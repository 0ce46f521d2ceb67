package pgstore

import (
	"context"
	"maps"
	"time"
)

// A mount asks for a session's branch rows on every lookup, stat and open
// (a view), and for its state on every open for writing: a query each,
// three round trips around each append. So a store whose listener is
// caught up keeps them, per session, until a change to the session is
// told: this process's changes from the calls that make them (publish),
// another writer's from the listener, within a notification's time (the
// 1 s within which the contract shows another machine's writes). While
// the listener is away (never started, as in a command, or reconnecting)
// nothing is kept and every call asks the database, as before.
//
// rowCache is what a session's handle keeps. A read that began before a
// change was told is not kept (gen), nor one that began before the
// listener last lost track (the store's cacheEpoch).
type rowCache struct {
	gen   uint64          // bumped by every change told
	reads uint64          // counts the reads begun in this gen (tickets)
	set   kept[branchSet] // never changed once kept (copied on write)
	state kept[string]
}

// kept is one answer kept, the store's epoch it was read in, and the
// ticket of its read. A read begun later sees the database as new or
// newer (each query sees what was committed when it began), so an answer
// is kept only over one of an earlier ticket: two reads racing before a
// change is told must not leave the older answer kept after the newer
// was given out, or what a mount serves would go back in time (a file
// would read shorter than the size it reported).
type kept[T any] struct {
	v      T
	ok     bool
	epoch  uint64
	ticket uint64
}

// cacheLive says rows may be kept: the listener is connected and has
// caught up. It bumps the epoch on the way down, dropping what was kept.
func (st *Store) cacheLive(live bool) {
	if !live {
		st.cacheOn.Store(false)
		st.cacheEpoch.Add(1)
		return
	}
	st.cacheOn.Store(true)
}

// cacheMark is what a read needs to keep its answer: the session's gen,
// the store's epoch before it asks, and its ticket; ok is false when
// nothing is kept.
func (s *Session) cacheMark() (gen, epoch, ticket uint64, ok bool) {
	if !s.st.cacheOn.Load() {
		return 0, 0, 0, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rows.reads++
	return s.rows.gen, s.st.cacheEpoch.Load(), s.rows.reads, true
}

// keepable reports, under s.mu, whether a read begun at (gen, epoch) may
// be kept: no change told since, and the listener still caught up.
func (s *Session) keepable(gen, epoch uint64) bool {
	return s.rows.gen == gen && s.st.cacheOn.Load() && s.st.cacheEpoch.Load() == epoch
}

// cachedBranches is loadBranches, from what is kept when it may be.
func (s *Session) cachedBranches(ctx context.Context) (branchSet, error) {
	return keep(s, func(c *rowCache) *kept[branchSet] { return &c.set }, func() (branchSet, error) {
		return s.loadBranches(ctx, s.st.pool)
	})
}

// cachedState is the session's state, from what is kept when it may be.
func (s *Session) cachedState(ctx context.Context) (string, error) {
	return keep(s, func(c *rowCache) *kept[string] { return &c.state }, func() (state string, err error) {
		err = s.st.pool.QueryRow(ctx, `SELECT state FROM sessions WHERE session_id = $1`, s.id).Scan(&state)
		return state, err
	})
}

// keep answers from what field of the session's rowCache keeps, kept in
// the epoch the store is in, or else from load, kept if it may be.
func keep[T any](s *Session, field func(*rowCache) *kept[T], load func() (T, error)) (T, error) {
	gen, epoch, ticket, on := s.cacheMark()
	if on {
		s.mu.Lock()
		k := *field(&s.rows)
		s.mu.Unlock()
		if k.ok && k.epoch == epoch {
			return k.v, nil
		}
	}
	v, err := load()
	if err != nil || !on {
		return v, err
	}
	s.mu.Lock()
	if f := field(&s.rows); s.keepable(gen, epoch) && ticket > f.ticket {
		*f = kept[T]{v: v, ok: true, epoch: epoch, ticket: ticket}
	}
	s.mu.Unlock()
	return v, nil
}

// changed drops what is kept of the session: a change to it was told.
func (s *Session) changed() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rows = rowCache{gen: s.rows.gen + 1}
}

// grew brings a kept branch row up to what this process's append left in
// the database (its RETURNING): the append told, without asking again.
// An older answer (appends finishing out of order) changes nothing.
func (s *Session) grew(branch string, next, events int64, mod time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.rows.set.v[branch]
	if !ok || r.NextSeq >= next {
		return
	}
	r.NextSeq, r.Events, r.ModTime = next, events, mod
	set := maps.Clone(s.rows.set.v)
	set[branch] = r
	s.rows.set.v = set
}

// rowsChanged drops what is kept of session, on its handle in this
// process (a session never opened here kept nothing); "" drops what every
// session kept.
func (st *Store) rowsChanged(session string) {
	if session == "" {
		// A change of every session at once (a resync): drop it all.
		st.cacheEpoch.Add(1)
		return
	}
	st.mu.Lock()
	s := st.sessions[session]
	st.mu.Unlock()
	if s != nil {
		s.changed()
	}
}
