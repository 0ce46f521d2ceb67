package fsnode

import (
	"fmt"
	"hash/crc32"
	"log"
	"math"
	"strconv"
	"sync"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/render"
)

// keptSizes is what the store keeps (backing.SizeKeeper) of one view's
// piece sizes in one format: the sizes of each branch's own messages,
// for each segment of the view (what it inherits of each ancestor, then
// its branch's own messages). sizeCache takes them instead of rendering,
// and has the store keep the sizes of the branch's own messages as it
// learns them. A nil *keptSizes keeps nothing.
type keptSizes struct {
	sk   backing.SizeKeeper
	name string // the format's (format.keptName)
	segs []keptSeg
}

// keptSeg is one segment of a view: the first n own messages of a
// branch, at positions [first, first+n) of the view.
type keptSeg struct {
	branch   string
	first, n int
	stamp    string   // what its sizes are kept under (sizesStamp)
	sizes    []uint32 // the kept sizes this view can use, until it has
	kept     int      // how many the store keeps
}

// sizesVersion names the piece rule's output: render's Fingerprint, and
// the notes the rule adds (backing's wording). Bump pieceRule when
// PieceMessage changes what it gives render.
var sizesVersion = sync.OnceValue(func() string {
	const pieceRule = 1
	notes := backing.Ending{CutOff: true}.Note(2) +
		backing.InterruptionNote([]byte(`{"role":"event","content":"","event":"turn_end","data":{"interrupted":true,"reason":"r"}}`)) +
		backing.InterruptionNote([]byte(`{"role":"event","content":"","event":"run_errored","data":{"error":"e"}}`))
	return fmt.Sprintf("p%d r%s n%08x", pieceRule, render.Fingerprint(), crc32.ChecksumIEEE([]byte(notes)))
})

// sizesStamp is what the sizes of the segment of v from first are kept
// under: the piece rule's version, and what the segment's pieces depend
// on before it (how many messages and turns its branch inherits).
func sizesStamp(v backing.View, first int) string {
	turns := 0
	if first > 0 {
		turns = v.TurnOf(first - 1)
	}
	return sizesVersion() + " i" + strconv.Itoa(first) + " t" + strconv.Itoa(turns)
}

// lookUpKept reads what the store keeps of v's sizes in format ft; nil
// when it keeps none (or cannot say: the pieces are then rendered).
func lookUpKept(s backing.Session, v backing.View, ft format) *keptSizes {
	sk, ok := s.(backing.SizeKeeper)
	if !ok || ft.keptName() == "" {
		return nil
	}
	segs, err := viewSegments(s, v)
	if err != nil {
		log.Printf("sessfs: session %s: kept sizes not used: %v", s.ID(), err)
		return nil
	}
	k := &keptSizes{sk: sk, name: ft.keptName(), segs: segs}
	for i := range k.segs {
		sg := &k.segs[i]
		sg.stamp = sizesStamp(v, sg.first)
		sizes, err := sk.KeptSizes(sg.branch, k.name, sg.stamp)
		if err != nil {
			log.Printf("sessfs: session %s: kept sizes of branch %s not used: %v", s.ID(), sg.branch, err)
			continue
		}
		sg.kept = len(sizes)
		if len(sizes) > sg.n { // the branch has more than v holds
			use, err := settledAt(v, sg.first, sg.n)
			if err != nil {
				continue
			}
			sizes = sizes[:use]
		}
		sg.sizes = sizes
	}
	return k
}

// viewSegments are v's segments, root first: what it inherits of each
// ancestor, then its branch's own messages.
func viewSegments(s backing.Session, v backing.View) ([]keptSeg, error) {
	b := v.Branch()
	segs := []keptSeg{{branch: b.ID, first: v.Inherited(), n: v.Len() - v.Inherited()}}
	seen := map[string]bool{b.ID: true}
	for limit := v.Inherited(); limit > 0; {
		if b.IsDefault() || seen[b.Parent] {
			return nil, fmt.Errorf("branch %s: its ancestry does not hold its %d inherited messages", v.Branch().ID, v.Inherited())
		}
		seen[b.Parent] = true
		pv, err := s.ViewID(b.Parent)
		if err != nil {
			return nil, err
		}
		b = pv.Branch()
		if first := pv.Inherited(); limit > first {
			segs = append(segs, keptSeg{branch: b.ID, first: first, n: limit - first})
			limit = first
		}
	}
	for i, j := 0, len(segs)-1; i < j; i, j = i+1, j-1 {
		segs[i], segs[j] = segs[j], segs[i]
	}
	return segs, nil
}

// settledAt is how many of the n messages of a segment of v from first
// have the same pieces in v as in the segment's own branch: all but
// context at the segment's end, which a prompt after it in that branch
// makes the start of its turn there (and not in v).
func settledAt(v backing.View, first, n int) (int, error) {
	use := n
	for to := first + n; to > first; {
		from := max(first, to-16)
		msgs, err := v.Read(from, to)
		if err != nil {
			return 0, err
		}
		for i := len(msgs) - 1; i >= 0; i-- {
			k := backing.KindOf(msgs[i].Raw)
			if !k.Context && !k.Event {
				return use, nil
			}
			if k.Context {
				use = msgs[i].Index - first
			}
		}
		to = from
	}
	return use, nil
}

// at is the kept sizes of the pieces from view position i on, as many as
// one segment keeps; none if the piece at i is not kept. It gives each
// size once.
func (k *keptSizes) at(i int) []uint32 {
	if k == nil {
		return nil
	}
	for j := range k.segs {
		sg := &k.segs[j]
		if i >= sg.first && i < sg.first+sg.n {
			if i-sg.first >= len(sg.sizes) {
				return nil
			}
			sizes := sg.sizes[i-sg.first:]
			sg.sizes = nil
			return sizes
		}
	}
	return nil
}

// stop is where pieces rendered from i, up to to, stop: before the next
// piece whose size is kept.
func (k *keptSizes) stop(i, to int) int {
	if k == nil {
		return to
	}
	for _, sg := range k.segs {
		if sg.first > i && sg.first < to && len(sg.sizes) > 0 {
			return sg.first
		}
	}
	return to
}

// keep has the store keep the final sizes (off, the first settled of
// them) of the branch's own messages that it does not keep yet.
func (k *keptSizes) keep(v backing.View, off []int64, settled int) {
	if k == nil || len(k.segs) == 0 {
		return
	}
	sg := &k.segs[len(k.segs)-1]
	n := settled - sg.first
	if n <= sg.kept || sg.first+n >= len(off) {
		return
	}
	sizes := make([]uint32, n)
	for i := range sizes {
		d := off[sg.first+i+1] - off[sg.first+i]
		if d > math.MaxUint32 {
			return
		}
		sizes[i] = uint32(d)
	}
	if err := k.sk.KeepSizes(sg.branch, k.name, sg.stamp, sizes, sg.kept); err != nil {
		log.Printf("sessfs: branch %s: keeping piece sizes: %v", sg.branch, err)
		k.sk = nil // the store says why once; the mount renders as before
		k.segs = nil
		return
	}
	sg.kept = n
}

// KeepSizes has the store keep the piece sizes of every branch of session
// s in every format it keeps (backing.SizeKeeper), rendering what it
// lacks: `sessfs import` does so, so that a mount's first stat of an
// imported session's transcript is a lookup, however long it is. A store
// that keeps none is left alone.
func KeepSizes(s backing.Session) error {
	if _, ok := s.(backing.SizeKeeper); !ok {
		return nil
	}
	bs, err := s.Branches()
	if err != nil {
		return err
	}
	for _, b := range bs {
		v, err := s.ViewID(b.ID)
		if err != nil {
			return err
		}
		memo := newPieceMemo()
		for _, ft := range keptFormats {
			c := newSizeCache(sizeKey{})
			c.memo = memo
			if _, err := c.offsets(nil, s, v, ft); err != nil {
				return err
			}
		}
	}
	return nil
}

// keptFormats are the formats whose piece sizes a store keeps.
var keptFormats = [...]format{formatMarkdown, formatHTML, formatJSON, formatRedacted}
