package fsnode

import (
	"math"
	"slices"

	"github.com/sessfs/sessfs/backing"
)

// pieceMemo is what rendering a view's messages in every kept format told,
// for KeepSizes, which works out the sizes of all of them: the pass of
// the first format reads and renders each message once for all formats
// (one parse of its header and note, one Markdown rendering for both
// Markdown formats), and the passes of the others find their sizes here
// instead of reading and rendering again. It holds the facts of the
// messages from position first on, in order, 20 bytes a message.
type pieceMemo struct {
	first int
	sizes [][len(keptFormats)]uint32
	kinds []backing.Kind

	md, out []byte // what add renders into, again and again: only sizes are kept
}

// newPieceMemo returns a memo for one view.
func newPieceMemo() *pieceMemo { return &pieceMemo{first: -1} }

// facts are the facts of the pieces [from, to) in format ft, if the memo
// holds all of them; nil otherwise (and always for a nil memo).
func (p *pieceMemo) facts(from, to int, ft format) []pieceFact {
	j := slices.Index(keptFormats[:], ft)
	if p == nil || j < 0 || p.first < 0 || from < p.first || to > p.first+len(p.sizes) || from >= to {
		return nil
	}
	facts := make([]pieceFact, to-from)
	for i := range facts {
		facts[i] = pieceFact{size: int(p.sizes[from-p.first+i][j]), kind: p.kinds[from-p.first+i]}
	}
	return facts
}

// add renders m (prev how the turn before it ended) in every kept format,
// remembers the sizes with m's kind if m comes right after what the memo
// holds, and returns the size of its piece in format ft, one of them.
func (p *pieceMemo) add(m backing.Message, prev backing.Ending, kind backing.Kind, ft format) int {
	rm := PieceMessage(m, prev)
	p.md = formatMarkdown.appendPiece(p.md[:0], rm, m.Index == 0, nil)
	var sizes [len(keptFormats)]uint32
	size, fits := 0, true
	for j, f := range keptFormats {
		n := len(p.md)
		if f != formatMarkdown {
			p.out = f.appendPiece(p.out[:0], rm, m.Index == 0, p.md)
			n = len(p.out)
		}
		sizes[j], fits = uint32(n), fits && n <= math.MaxUint32
		if f == ft {
			size = n
		}
	}
	if p.first < 0 {
		p.first = m.Index
	}
	if fits && m.Index == p.first+len(p.sizes) {
		p.sizes = append(p.sizes, sizes)
		p.kinds = append(p.kinds, kind)
	}
	return size
}
