package filestore

import (
	"hash/maphash"

	"github.com/sessfs/sessfs/backing"
)

// Exactly once (DESIGN.md, "Appending"): a message whose own id already
// exists in the branch, or in its ancestry before the fork point, is
// acknowledged and not stored again, so a writer that does not know
// whether its append was stored (its daemon crashed, its process was
// killed) can always send it again. Only ids the writer gave are checked:
// the ones the store assigns are fresh UUIDs no retry can carry, so an
// append without ids costs nothing more.
//
// The check runs under the session lock, so no other writer can store the
// same id between it and the write. Each log's index keeps a set of its
// messages' ids, built on the first append that needs it and then kept up
// with the log: a hash of each id to the first message with that hash,
// about as much memory as the index itself. A hash is confirmed by reading
// the message, and a collision falls back to reading the log.

var idSeed = maphash.MakeSeed()

func hashID(id string) uint64 { return maphash.String(idSeed, id) }

// putID records message i's id, keeping the first message of each hash.
func (x *logIndex) putID(id string, i int) {
	if id == "" {
		return
	}
	h := hashID(id)
	if _, ok := x.ids[h]; !ok {
		x.ids[h] = int32(i)
	}
}

// refreshIDs refreshes the index and its id set. The caller holds x.mu.
// An index not built yet collects the ids in the scan that builds it,
// reading the log once, not twice.
func (x *logIndex) refreshIDs() error {
	if x.ids == nil && x.scanned == 0 {
		x.ids = map[uint64]int32{}
	}
	if err := x.refresh(); err != nil {
		return err
	}
	if x.ids == nil {
		return x.buildIDs()
	}
	return nil
}

// buildIDs makes the id set of the messages indexed so far. The caller
// holds x.mu.
func (x *logIndex) buildIDs() error {
	x.ids = make(map[uint64]int32, len(x.msgs))
	return x.eachID(len(x.msgs), func(i int, id string) bool {
		x.putID(id, i)
		return true
	})
}

// eachID calls fn with the id of messages [0, n), reading the log in
// pieces of a few MiB, until fn returns false.
func (x *logIndex) eachID(n int, fn func(i int, id string) bool) error {
	for from := 0; from < n; {
		to, size := from, int64(0)
		for to < n && (to == from || size < 4<<20) {
			size += int64(x.msgs[to].n) + 1
			to++
		}
		lines, err := x.readRange(x.msgs[from:to])
		if err != nil {
			return err
		}
		for k, line := range lines {
			if !fn(from+k, backing.IDOf(line)) {
				return nil
			}
		}
		from = to
	}
	return nil
}

// hasID reports whether a message of the log before byte end (-1: the
// whole log) has id. The caller holds x.mu, with the index refreshed and
// its id set built.
func (x *logIndex) hasID(id string, end int64) (bool, error) {
	i, ok := x.ids[hashID(id)]
	if !ok {
		return false, nil
	}
	// The first message with this hash is past the fork point: so is every
	// message with this id.
	if end >= 0 && x.msgs[i].end() > end {
		return false, nil
	}
	lines, err := x.readRange(x.msgs[i : i+1])
	if err != nil {
		return false, err
	}
	if backing.IDOf(lines[0]) == id {
		return true, nil
	}
	// Another id with the same hash came first: look through the log.
	found := false
	err = x.eachID(len(x.msgs), func(i int, got string) bool {
		if end >= 0 && x.msgs[i].end() > end {
			return false
		}
		found = got == id
		return !found
	})
	return found, err
}

// retried marks (in p.dup) the messages of group, appends to one branch,
// whose id is already in the branch or earlier in group; it reads nothing
// when no message of group has an id of its writer's. The caller holds
// the session lock.
func (s *Session) retried(branchID string, group []*pending) error {
	given := false
	for _, p := range group {
		given = given || p.ids != nil
	}
	if !given {
		return nil
	}
	b, err := s.BranchByID(branchID)
	if err != nil {
		return err
	}
	chain, err := s.ancestry(b)
	if err != nil {
		return err
	}
	for _, l := range chain {
		x := s.logIndex(l.id)
		x.mu.Lock()
		err := x.refreshIDs()
		x.mu.Unlock()
		if err != nil {
			return err
		}
	}
	seen := map[string]bool{}
	for _, p := range group {
		for i, id := range p.ids {
			if id == "" {
				continue
			}
			found := seen[id]
			for _, l := range chain {
				if found {
					break
				}
				x := s.logIndex(l.id)
				x.mu.Lock()
				found, err = x.hasID(id, l.end)
				x.mu.Unlock()
				if err != nil {
					return err
				}
			}
			if found {
				if p.dup == nil {
					p.dup = make([]bool, len(p.lines))
				}
				p.dup[i] = true
			}
			seen[id] = true
		}
	}
	return nil
}
