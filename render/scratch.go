package render

import "sync"

// scratch keeps the buffers that the functions returning a piece of its
// own (Markdown, HTML) render into, so that each piece costs one
// allocation, of its exact size, rather than those of a growing slice.
var scratch = sync.Pool{New: func() any { return new([]byte) }}

// maxScratch bounds the buffers scratch keeps: a rare huge piece is not
// held on to.
const maxScratch = 256 << 10

// exactly returns appendPiece's piece of m in a slice of its own.
func exactly(appendPiece func([]byte, Message) []byte, m Message) []byte {
	p := scratch.Get().(*[]byte)
	b := appendPiece((*p)[:0], m)
	out := make([]byte, len(b))
	copy(out, b)
	if cap(b) <= maxScratch {
		*p = b
		scratch.Put(p)
	}
	return out
}
