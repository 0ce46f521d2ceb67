package filestore

import (
	"time"

	"github.com/sessfs/sessfs/backing"
)

// A build of the index reads the store ahead of its writer: while SQLite
// indexes one session on one core, a goroutine reads the next sessions'
// logs on the other and extracts their text (backing.SearchText), about a
// third of a build's work. Only reading is done ahead: the writer decides
// everything as it would alone, and uses a chunk read ahead only when it
// is the very one it would read itself (the same branch, from the same
// message), else reads its own.

// aheadSessions and aheadBytes bound what waits for the writer: a few
// sessions, none larger than aheadBytes (a variable for the tests), which
// the writer reads itself.
const aheadSessions = 4

var aheadBytes int64 = 16 << 20

// chunk is messages [from, to) of a branch, read, each with its text.
type chunk struct {
	from, to int
	size     int64 // stored bytes
	msgs     []backing.Message
	texts    []msgText
}

// msgText is what the index keeps of a message (backing.SearchText).
type msgText struct {
	role string
	ts   time.Time
	text string
}

// readChunk reads the chunk of v that starts at message from: up to
// chunkMessages messages and chunkBytes bytes, at least one.
func readChunk(v backing.View, from int) (*chunk, error) {
	c := &chunk{from: from, to: from}
	for c.to < v.Len() && c.to-from < chunkMessages && c.size < chunkBytes {
		c.size += int64(v.RawLen(c.to))
		c.to++
	}
	msgs, err := v.Read(from, c.to)
	if err != nil {
		return nil, err
	}
	c.msgs, c.texts = msgs, make([]msgText, len(msgs))
	for i, m := range msgs {
		t := &c.texts[i]
		t.role, t.ts, t.text = backing.SearchText(m.Raw)
	}
	return c, nil
}

// chunkKey names a chunk by where it starts.
type chunkKey struct {
	branch string
	from   int
}

// readAhead is the goroutine that reads sessions ahead of a build.
type readAhead struct {
	out  chan map[chunkKey]*chunk // one per id, in order; nil: not read
	stop chan struct{}
}

// readAhead starts reading the sessions ids, in their order, from the
// messages a new index lacks (each branch's own, after its fork point).
func (st *Store) readAhead(ids []string) *readAhead {
	r := &readAhead{out: make(chan map[chunkKey]*chunk, aheadSessions), stop: make(chan struct{})}
	go func() {
		if st.opts.Indexing { // a mount's build: background work, as its writer is (kick)
			lowPriority()
		}
		defer close(r.out)
		for _, id := range ids {
			select {
			case r.out <- st.readSessionAhead(id):
			case <-r.stop:
				return
			}
		}
	}()
	return r
}

// next is what was read of the next session, nil if nothing.
func (r *readAhead) next() map[chunkKey]*chunk { return <-r.out }

// close stops the goroutine; what it read is dropped.
func (r *readAhead) close() {
	close(r.stop)
	for range r.out {
	}
}

// readSessionAhead reads session id's new chunks; nil when it cannot, or
// when the session is larger than aheadBytes: the writer reads it then.
func (st *Store) readSessionAhead(id string) map[chunkKey]*chunk {
	s, err := st.SessionByID(id)
	if err != nil {
		return nil
	}
	branches, err := s.Branches()
	if err != nil {
		return nil
	}
	var views []backing.View
	var size int64
	for _, b := range branches {
		v, err := s.ViewID(b.ID)
		if err != nil {
			continue
		}
		for i := v.Inherited(); i < v.Len(); i++ {
			size += int64(v.RawLen(i))
		}
		views = append(views, v)
	}
	if size > aheadBytes {
		return nil
	}
	out := map[chunkKey]*chunk{}
	for _, v := range views {
		for from := v.Inherited(); from < v.Len(); {
			c, err := readChunk(v, from)
			if err != nil {
				break
			}
			out[chunkKey{v.Branch().ID, from}] = c
			from = c.to
		}
	}
	return out
}
