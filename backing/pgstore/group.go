package pgstore

import "sync"

// Group commit. Every append to a branch advances the branch's row and
// holds its lock until it commits, a flush of the server's log each: the
// appends of one branch commit one at a time, whatever their number. So
// the appends this process makes to a branch at once are made one
// statement: the first leads and commits what is waiting; those that came
// meanwhile wait for the next statement, which one of them leads. A lone
// writer waits for nobody.

// Bounds of one statement: at least one append, whatever its size.
const (
	groupMessages = 1000
	groupBytes    = 8 << 20
)

// appendReq is one AppendID call waiting in a group.
type appendReq struct {
	f      fields
	prompt int // the index of its first prompt, -1 none
	// wake tells a waiting request its statement is done (false, with
	// err set) or that it leads the next one (true).
	wake chan bool
	err  error
}

// appendGroup is the appends to one branch waiting for a statement.
type appendGroup struct {
	mu      sync.Mutex
	pending []*appendReq
	busy    bool // a leader is committing
}

// group is the append group of branch id.
func (s *Session) group(id string) *appendGroup {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.groups[id]
	if g == nil {
		g = &appendGroup{}
		s.groups[id] = g
	}
	return g
}

// do commits r with the appends waiting beside it: commit runs one
// statement for a batch and sets every request's err.
func (g *appendGroup) do(r *appendReq, commit func(batch []*appendReq)) error {
	g.mu.Lock()
	g.pending = append(g.pending, r)
	if g.busy {
		g.mu.Unlock()
		if lead := <-r.wake; !lead {
			return r.err
		}
		g.mu.Lock()
	}
	g.busy = true
	// r is first in line: a new leader found none, and a leader hands
	// over to the first that waits.
	batch := g.take()
	g.mu.Unlock()

	commit(batch)
	for _, o := range batch[1:] {
		o.wake <- false
	}

	g.mu.Lock()
	if len(g.pending) > 0 {
		next := g.pending[0]
		g.mu.Unlock()
		next.wake <- true
	} else {
		g.busy = false
		g.mu.Unlock()
	}
	return r.err
}

// take removes the appends of the next statement from the line: in their
// order, up to the bounds. The caller holds g.mu.
func (g *appendGroup) take() []*appendReq {
	n, msgs, bytes := 1, len(g.pending[0].f.raw), g.pending[0].f.bytes
	for ; n < len(g.pending); n++ {
		f := &g.pending[n].f
		if msgs+len(f.raw) > groupMessages || bytes+f.bytes > groupBytes {
			break
		}
		msgs, bytes = msgs+len(f.raw), bytes+f.bytes
	}
	batch := append([]*appendReq(nil), g.pending[:n]...)
	g.pending = append(g.pending[:0], g.pending[n:]...)
	return batch
}
