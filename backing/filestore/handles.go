package filestore

import (
	"cmp"
	"path/filepath"
	"slices"
)

// The store keeps one handle per session (Session), so that every
// goroutine of a process shares its log indexes, its branch list and its
// group commit. A handle of a session read once would otherwise be kept
// for the life of the process: a mount that has read every session of a
// big store, or a sync --watch running for weeks, would hold every index.
// So the handles kept are bounded. Only an idle handle is dropped (no
// append queued or being written); a caller still holding one goes on
// using it safely, as another process would, because every handle takes
// the session's file lock for a change and reads each log's own state.

// maxHandles is how many handles the store keeps; past it, the least
// recently asked-for idle ones are dropped, down to three quarters of it,
// so that a sweep is paid once per maxHandles/4 new handles.
var maxHandles = 512 // a variable for the tests

// handle returns the process-wide handle of session id.
func (st *Store) handle(id string) *Session {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.tick++
	if s := st.sessions[id]; s != nil {
		s.used = st.tick
		return s
	}
	dir := st.sessionDir(id)
	s := &Session{st: st, id: id, dir: dir, lk: fileLock{path: filepath.Join(dir, "lock")},
		logs: map[string]*logIndex{}, used: st.tick}
	st.sessions[id] = s
	if len(st.sessions) > maxHandles {
		st.dropIdle(maxHandles * 3 / 4)
	}
	return s
}

// dropIdle drops the least recently used idle handles until keep are
// left, or none idle is. The caller holds st.mu.
func (st *Store) dropIdle(keep int) {
	all := make([]*Session, 0, len(st.sessions))
	for _, s := range st.sessions {
		all = append(all, s)
	}
	slices.SortFunc(all, func(a, b *Session) int { return cmp.Compare(a.used, b.used) })
	for _, s := range all {
		if len(st.sessions) <= keep {
			return
		}
		if s.dropIfIdle() {
			delete(st.sessions, s.id)
		}
	}
}

// dropIfIdle reports whether no append is queued on s or being written,
// and if so lets go of the indexes of its logs. A handle whose lock is
// held is busy; TryLock keeps the order of locks (st.mu, then s.mu) from
// mattering.
//
// A dropped handle may still be held: a mount's node keeps the handle of
// its session for as long as the kernel remembers it, and would keep every
// index the handle built, one per session read, past any bound. Its next
// use builds them again from the log, or from their kept copies
// (logindex_kept.go), as a new handle would.
func (s *Session) dropIfIdle() bool {
	if !s.mu.TryLock() {
		return false
	}
	defer s.mu.Unlock()
	if len(s.queue) > 0 || s.committing {
		return false
	}
	s.logs = map[string]*logIndex{}
	return true
}
