package fsnode

import (
	"sync"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/render"
)

// format is a rendering of messages: Markdown or JSON lines, and the
// whole-branch files framed by a head and a tail (HTML, one JSON
// document), and Markdown with secrets masked.
type format int

const (
	formatMarkdown format = iota
	formatJSONL
	formatHTML
	formatJSON
	formatRedacted
)

// render is message m's piece; ended is how the turns before it ended
// (backing.Endings.Finished), for its note.
func (f format) render(m backing.Message, ended []backing.Ending) []byte {
	rm := PieceMessage(m, ended)
	switch f {
	case formatJSONL:
		return render.JSONL(rm)
	case formatHTML:
		return render.HTML(rm)
	case formatJSON:
		return render.JSONMember(rm, m.Index == 0)
	case formatRedacted:
		// Piece by piece: a secret never spans two messages' pieces.
		return render.Redact(render.Markdown(rm))
	}
	return render.Markdown(rm)
}

type sizeKey struct {
	branch string
	format format
}

// sizeCache holds, for one branch and format, the byte offset of each
// message's piece in the rendering: off[i] is where message i starts and
// off[n] is the size; and, read on the way, how its turns ended (the
// interruption rule), which the pieces' notes say. It is built once and extended as the branch grows,
// so a read at any offset finds its first message by binary search and
// renders only what it returns. It is kept while a rendering the kernel
// holds uses it (users, under FS.mu), and dropped with the last one.
type sizeCache struct {
	users int

	mu   sync.Mutex
	off  []int64
	ends backing.Endings
}

// holdSizes returns the cache of k, counting one more user.
func (f *FS) holdSizes(k sizeKey) *sizeCache {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.sizes[k]
	if c == nil {
		c = &sizeCache{off: []int64{0}}
		f.sizes[k] = c
	}
	c.users++
	return c
}

// dropSizes counts one user of the cache of k less, and forgets the cache
// with its last user, and the kept big piece if it is of k.
func (f *FS) dropSizes(k sizeKey) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c := f.sizes[k]; c != nil {
		if c.users--; c.users <= 0 {
			delete(f.sizes, k)
			if f.big.id.sizes == k {
				f.big = bigPiece{}
			}
		}
	}
}

// offsets returns the piece offsets of v's messages in format ft, and
// how the turns a later one followed ended. The slices are shared:
// callers only read them.
func (c *sizeCache) offsets(v backing.View, ft format) ([]int64, []backing.Ending, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := v.Len()
	if n < len(c.off)-1 { // the log was repaired and shrank: start over
		c.off, c.ends = []int64{0}, backing.Endings{}
	}
	const batch = 1024
	for have := len(c.off) - 1; have < n; have = len(c.off) - 1 {
		to := min(n, have+batch)
		if ft == formatJSONL {
			// A JSONL piece is the stored line and a newline: its size
			// is in the index, no read needed.
			for i := have; i < to; i++ {
				c.off = append(c.off, c.off[len(c.off)-1]+int64(v.RawLen(i))+1)
			}
			continue
		}
		msgs, err := v.Read(have, to)
		if err != nil {
			return nil, nil, err
		}
		for _, m := range msgs {
			c.ends.Add(m)
			c.off = append(c.off, c.off[len(c.off)-1]+int64(len(ft.render(m, c.ends.Finished()))))
		}
	}
	return c.off[: n+1 : n+1], c.ends.Finished(), nil
}
