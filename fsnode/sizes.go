package fsnode

import (
	"cmp"
	"slices"
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

// appendPiece appends f's piece of rm to dst, first whether rm is the
// view's first message; md is rm's Markdown piece when it is already
// rendered (nil otherwise), which the redacted one is made of. The one
// place a format names its renderer: a caller renders many pieces into
// one buffer, or one into a buffer of the size the offsets say.
func (f format) appendPiece(dst []byte, rm render.Message, first bool, md []byte) []byte {
	switch f {
	case formatJSONL:
		return render.AppendJSONL(dst, rm)
	case formatHTML:
		return render.AppendHTML(dst, rm)
	case formatJSON:
		return render.AppendJSONMember(dst, rm, first)
	case formatRedacted:
		if md == nil {
			md = render.Markdown(rm)
		}
		// Piece by piece: a secret never spans two messages' pieces.
		return render.AppendRedact(dst, md)
	}
	return render.AppendMarkdown(dst, rm)
}

// keptName is the name under which a store keeps the format's piece sizes
// (backing.SizeKeeper); "" for JSON lines, whose pieces' sizes are the
// stored lines' (View.RawLen).
func (f format) keptName() string {
	switch f {
	case formatMarkdown:
		return "md"
	case formatHTML:
		return "html"
	case formatJSON:
		return "json"
	case formatRedacted:
		return "redacted.md"
	}
	return ""
}

type sizeKey struct {
	branch string
	format format
}

// sizeCache holds, for one branch and format, the byte offset of each
// message's piece in the rendering: off[i] is where message i starts and
// off[n] is the size. It is built once (from the sizes the store keeps,
// kept_sizes.go, rendering only what they lack) and extended as the branch
// grows, so a read at any offset finds its first message by binary search
// and renders only what it returns. It is kept while a rendering the
// kernel holds uses it (users, under FS.mu), and dropped with the last
// one. The kernel may hold many (it keeps what was looked up until memory
// runs short), so what they hold in all is bounded: past maxSizeEntries
// offsets, the least recently used are emptied (usedSizes), to be built
// again if asked, from the kept sizes, in a read of the store's small file.
//
// A piece is final once the branch has a message after it that is neither
// injected context nor an event: until then, context at the branch's end
// may join the turn of a prompt appended next and take its heading. The
// pieces from the first that is not final (settled) are rendered again
// each time.
type sizeCache struct {
	users int
	// Under FS.mu: the offsets counted in FS.sizeEntries for it, and
	// when it was last used (FS.sizeTick).
	counted int
	used    uint64
	keyOf   sizeKey // its key in FS.sizes

	mu      sync.Mutex
	off     []int64
	settled int        // pieces [0, settled) are final
	kept    *keptSizes // what the store keeps, once looked up; nil before
	memo    *pieceMemo // shared with the caches of v's other formats (KeepSizes); nil in a mount

	endsMu   sync.Mutex
	ends     map[int]backing.Ending // turn endings read for notes (noteEnding)
	turnEnds backing.TurnEnds       // what finding them read of the typed events
}

func newSizeCache(k sizeKey) *sizeCache { return &sizeCache{off: []int64{0}, counted: 1, keyOf: k} }

// holdSizes returns the cache of k, counting one more user.
func (f *FS) holdSizes(k sizeKey) *sizeCache {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.sizes[k]
	if c == nil {
		c = newSizeCache(k)
		f.sizes[k] = c
		f.sizeEntries += c.counted
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
			f.sizeEntries -= c.counted
			if f.big.id.sizes == k {
				f.big = bigPiece{}
			}
		}
	}
}

// maxSizeEntries bounds the offsets the size caches of a mount hold in
// all: 8 bytes each, 32 MiB. A test sets another in its FS's sizeBound.
const maxSizeEntries = 4 << 20

// usedSizes counts a use of c, which holds n offsets now, and empties the
// least recently used caches if all of them hold more than
// maxSizeEntries. c itself is kept: it is in use. A cache is only emptied
// when no one is using it (TryLock): one being built is next to use. A
// cache of no FS (nil: one sizes are worked out with, then dropped) is
// not counted.
func (f *FS) usedSizes(c *sizeCache, n int) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sizeTick++
	c.used = f.sizeTick
	if f.sizes[c.keyOf] != c {
		return // a cache no node holds (forgotten): not counted
	}
	f.sizeEntries += n - c.counted
	c.counted = n
	if f.sizeEntries <= f.sizeBound {
		return
	}
	all := make([]*sizeCache, 0, len(f.sizes))
	for _, o := range f.sizes {
		if o != c && o.counted > 1 {
			all = append(all, o)
		}
	}
	slices.SortFunc(all, func(a, b *sizeCache) int { return cmp.Compare(a.used, b.used) })
	for _, o := range all {
		if f.sizeEntries <= f.sizeBound*3/4 { // a sweep now and then, not at every use
			return
		}
		// Never wait under f.mu: one that is reading is next to use.
		if o.mu.TryLock() {
			if o.endsMu.TryLock() {
				o.empty()
				o.endsMu.Unlock()
				f.sizeEntries -= o.counted - 1
				o.counted = 1
			}
			o.mu.Unlock()
		}
	}
}

// empty forgets what c holds; the caller holds c.mu and c.endsMu.
func (c *sizeCache) empty() {
	c.off, c.settled, c.kept = []int64{0}, 0, nil
	c.ends, c.turnEnds = nil, backing.TurnEnds{}
}

// offsets returns the piece offsets of v's messages in format ft, v a
// view of a branch of session s. The slice is shared: callers only read
// it.
func (c *sizeCache) offsets(f *FS, s backing.Session, v backing.View, ft format) (off []int64, err error) {
	c.mu.Lock()
	defer func() {
		n := len(c.off)
		c.mu.Unlock()
		f.usedSizes(c, n)
	}()
	n := v.Len()
	if n < c.settled { // the log was repaired and shrank: start over
		c.endsMu.Lock()
		c.empty()
		c.endsMu.Unlock()
	}
	if len(c.off)-1 > c.settled {
		// Pieces not final: rendered again, in a new array, as readers
		// may hold the old one.
		c.off = slices.Clone(c.off[:c.settled+1])
	}
	if c.kept == nil && ft != formatJSONL {
		c.kept = lookUpKept(s, v, ft)
	}
	c.off = slices.Grow(c.off, max(0, n+1-len(c.off))) // one allocation for a long branch's first look
	own := v.Inherited()
	pending := -1 // the first context message of own after the last message that settles it
	const batch = 1024
	for have := len(c.off) - 1; have < n; have = len(c.off) - 1 {
		if ft == formatJSONL {
			// A JSONL piece is the stored line and a newline: its size
			// is in the index, no read needed, and final.
			for i := have; i < n; i++ {
				c.off = append(c.off, c.off[len(c.off)-1]+int64(v.RawLen(i))+1)
			}
			break
		}
		if sizes := c.kept.at(have); len(sizes) > 0 {
			for _, size := range sizes {
				c.off = append(c.off, c.off[len(c.off)-1]+int64(size))
			}
			pending = -1 // kept sizes are final ones
			continue
		}
		facts, err := c.pieceFacts(v, have, c.kept.stop(have, min(n, have+batch)), own, ft)
		if err != nil {
			return nil, err
		}
		for i, p := range facts {
			c.off = append(c.off, c.off[len(c.off)-1]+int64(p.size))
			if have+i < own {
				continue // an ancestor's: final in this view, whatever follows
			}
			switch k := p.kind; {
			case k.Context:
				if pending < 0 {
					pending = have + i
				}
			case !k.Event:
				pending = -1
			}
		}
	}
	if c.settled = n; pending >= 0 {
		c.settled = pending
	}
	c.kept.keep(v, c.off, c.settled)
	return c.off[: n+1 : n+1], nil
}

// pieceFact is what offsets needs of one message's piece: its size, and
// the message's kind (only for the branch's own messages: own).
type pieceFact struct {
	size int
	kind backing.Kind
}

// pieceFacts are the facts of the pieces of v's messages [from, to) in
// format ft, rendered, or found in c.memo when an earlier format's pass
// rendered them.
func (c *sizeCache) pieceFacts(v backing.View, from, to, own int, ft format) ([]pieceFact, error) {
	if facts := c.memo.facts(from, to, ft); facts != nil {
		return facts, nil
	}
	msgs, err := v.Read(from, to)
	if err != nil {
		return nil, err
	}
	facts := make([]pieceFact, len(msgs))
	var buf []byte // what each piece is rendered into, for its size
	for i, m := range msgs {
		prev, err := c.prevEnding(v, m)
		if err != nil {
			return nil, err
		}
		if m.Index >= own {
			facts[i].kind = backing.KindOf(m.Raw)
		}
		if c.memo != nil {
			facts[i].size = c.memo.add(m, prev, facts[i].kind, ft)
		} else {
			buf = ft.appendPiece(buf[:0], PieceMessage(m, prev), m.Index == 0, nil)
			facts[i].size = len(buf)
		}
	}
	return facts, nil
}

// appendPiece appends message m's piece of v in format ft to dst, with
// the note on how the turn before it ended when it starts a turn.
func (c *sizeCache) appendPiece(dst []byte, v backing.View, m backing.Message, ft format) ([]byte, error) {
	prev, err := c.prevEnding(v, m)
	if err != nil {
		return dst, err
	}
	return ft.appendPiece(dst, PieceMessage(m, prev), m.Index == 0, nil), nil
}

// prevEnding is how the turn before m's ended when m starts a turn (for
// its note), else the zero Ending.
func (c *sizeCache) prevEnding(v backing.View, m backing.Message) (backing.Ending, error) {
	if m.TurnStart && m.Turn >= 2 {
		return c.ending(v, m.Turn-1)
	}
	return backing.Ending{}, nil
}

// ending is how turn k of v ended, for the note of turn k+1's first piece
// (noteEnding), read once: a turn that a later one followed never changes.
// Only turns that may have been cut off are read, and kept.
func (c *sizeCache) ending(v backing.View, k int) (backing.Ending, error) {
	// Most turns cannot have been cut off (an imported session's none):
	// answered from the view's marks, without a lock or an entry kept.
	if may, err := mayBeCutOff(v, k); !may || err != nil {
		return backing.Ending{}, err
	}
	c.endsMu.Lock()
	defer c.endsMu.Unlock()
	if e, ok := c.ends[k]; ok {
		return e, nil
	}
	e, err := c.turnEnds.Ending(v, k) // noteEnding's read: mayBeCutOff said yes above
	if err != nil {
		return e, err
	}
	if c.ends == nil {
		c.ends = map[int]backing.Ending{}
	}
	c.ends[k] = e
	return e, nil
}
