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
	gen   uint64    // bumped by every change told
	epoch uint64    // the store's epoch set and state were read in
	set   branchSet // nil: not kept; never changed once kept (copied on write)
	state string    // "": not kept
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

// cacheMark is what a read needs to keep its answer: the session's gen and
// the store's epoch before it asks; ok is false when nothing is kept.
func (s *Session) cacheMark() (gen, epoch uint64, ok bool) {
	if !s.st.cacheOn.Load() {
		return 0, 0, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rows.gen, s.st.cacheEpoch.Load(), true
}

// keepable reports, under s.mu, whether a read begun at (gen, epoch) may
// be kept: no change told since, and the listener still caught up.
func (s *Session) keepable(gen, epoch uint64) bool {
	return s.rows.gen == gen && s.st.cacheOn.Load() && s.st.cacheEpoch.Load() == epoch
}

// cachedBranches is loadBranches, from what is kept when it may be.
func (s *Session) cachedBranches(ctx context.Context) (branchSet, error) {
	gen, epoch, ok := s.cacheMark()
	if ok {
		s.mu.Lock()
		set := s.rows.set
		if set != nil && s.rows.epoch != epoch {
			set = nil
		}
		s.mu.Unlock()
		if set != nil {
			return set, nil
		}
	}
	set, err := s.loadBranches(ctx, s.st.pool)
	if err != nil || !ok {
		return set, err
	}
	s.mu.Lock()
	if s.keepable(gen, epoch) {
		if s.rows.epoch != epoch {
			s.rows.state = ""
		}
		s.rows.set, s.rows.epoch = set, epoch
	}
	s.mu.Unlock()
	return set, nil
}

// cachedState is the session's state, from what is kept when it may be.
func (s *Session) cachedState(ctx context.Context) (string, error) {
	gen, epoch, ok := s.cacheMark()
	if ok {
		s.mu.Lock()
		state := s.rows.state
		if s.rows.epoch != epoch {
			state = ""
		}
		s.mu.Unlock()
		if state != "" {
			return state, nil
		}
	}
	var state string
	if err := s.st.pool.QueryRow(ctx, `SELECT state FROM sessions WHERE session_id = $1`, s.id).Scan(&state); err != nil || !ok {
		return state, err
	}
	s.mu.Lock()
	if s.keepable(gen, epoch) {
		if s.rows.epoch != epoch {
			s.rows.set = nil
		}
		s.rows.state, s.rows.epoch = state, epoch
	}
	s.mu.Unlock()
	return state, nil
}

// changed drops what is kept of the session: a change to it was told.
func (s *Session) changed() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rows.gen++
	s.rows.set, s.rows.state = nil, ""
}

// grew brings a kept branch row up to what this process's append left in
// the database (its RETURNING): the append told, without asking again.
// An older answer (appends finishing out of order) changes nothing.
func (s *Session) grew(branch string, next, events int64, mod time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.rows.set[branch]
	if !ok || r.NextSeq >= next {
		return
	}
	r.NextSeq, r.Events, r.ModTime = next, events, mod
	set := maps.Clone(s.rows.set)
	set[branch] = r
	s.rows.set = set
}

// rowsChanged drops what is kept of the sessions cs change, on their
// handles in this process (a session never opened here kept nothing).
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
