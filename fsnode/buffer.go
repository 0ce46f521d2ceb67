package fsnode

import (
	"fmt"

	"github.com/sessfs/sessfs/backing"
)

// buffer is bytes a handle or node holds in memory: a text message or an
// unterminated JSON line written to append, meta.json's pending edit, a
// scratch file. It never holds more than max (ErrTooLarge), and its
// capacity is charged to the mount's budget (errNoRoom past it). It grows
// by doubling, so data written in small pieces costs time in proportion
// to its length. The caller holds its lock.
type buffer struct {
	data   []byte
	max    int64
	budget *budget
	charge int64 // what it has taken of budget: cap(data), which only room, replace and release change
}

// keepCap is the most capacity a buffer keeps once emptied: a larger one
// goes back to the runtime at once, not kept for a next use.
const keepCap = 64 << 10

// room makes capacity for size bytes, or fails and leaves b as it was.
func (b *buffer) room(size int64) error {
	if size > b.max {
		return fmt.Errorf("%w: over %d bytes", backing.ErrTooLarge, b.max)
	}
	if size <= int64(cap(b.data)) {
		return nil
	}
	c := min(max(size, 2*int64(cap(b.data)), 512), b.max)
	if !b.budget.take(c - b.charge) {
		c = size // near the budget: what is needed, not double
		if !b.budget.take(c - b.charge) {
			return errNoRoom
		}
	}
	data := make([]byte, len(b.data), c)
	copy(data, b.data)
	b.data, b.charge = data, c
	return nil
}

func (b *buffer) Len() int { return len(b.data) }

// set replaces the bytes with data, which b copies.
func (b *buffer) set(data []byte) error {
	if err := b.room(int64(len(data))); err != nil {
		return err
	}
	b.data = append(b.data[:0], data...)
	return nil
}

// hold makes data the bytes, uncharged: for a handle that is never
// written (a read-only open, which the kernel refuses to write through).
// Its capacity is its length, so a growth would still be charged.
func (b *buffer) hold(data []byte) {
	b.data = data[:len(data):len(data)]
}

// append adds p at the end.
func (b *buffer) append(p []byte) error {
	if err := b.room(int64(len(b.data)) + int64(len(p))); err != nil {
		return err
	}
	b.data = append(b.data, p...)
	return nil
}

func (b *buffer) writeAt(p []byte, off int64) error {
	end := off + int64(len(p))
	if err := b.room(max(end, int64(len(b.data)))); err != nil {
		return err
	}
	if old := int64(len(b.data)); end > old {
		b.data = b.data[:end]
		clear(b.data[old:]) // a write past the end leaves zeros before it
	}
	copy(b.data[off:], p)
	return nil
}

func (b *buffer) truncate(size int64) error {
	if size <= int64(len(b.data)) {
		b.data = b.data[:size]
		return nil
	}
	if err := b.room(size); err != nil {
		return err
	}
	old := len(b.data)
	b.data = b.data[:size]
	clear(b.data[old:])
	return nil
}

// replace makes p the bytes, for which room was made: it cannot fail. A
// large capacity that p does not need goes back.
func (b *buffer) replace(p []byte) {
	if cap(b.data) > keepCap && len(p) <= keepCap {
		data := make([]byte, len(p), max(len(p), 512))
		copy(data, p)
		b.budget.give(b.charge - int64(cap(data)))
		b.data, b.charge = data, int64(cap(data))
		return
	}
	b.data = append(b.data[:0], p...)
}

// release empties b and gives its memory and its charge back.
func (b *buffer) release() {
	b.budget.give(b.charge)
	b.data, b.charge = nil, 0
}

// read copies up to n bytes from off: the caller's lock is released
// before the kernel gets them.
func (b *buffer) read(off int64, n int) []byte {
	return append([]byte(nil), slice(b.data, off, n)...)
}

// saved is what a change of a buffer overwrote, to put back if the
// change is refused.
type saved struct {
	off  int64
	old  []byte
	size int
}

// save keeps what a write of n bytes at off, or a truncation to off (n
// < 0: everything from off), would overwrite.
func (b *buffer) save(off int64, n int) saved {
	end := int64(len(b.data))
	if n >= 0 {
		end = min(end, off+int64(n))
	}
	s := saved{off: off, size: len(b.data)}
	if off < end {
		s.old = append([]byte(nil), b.data[off:end]...)
	}
	return s
}

// restore puts back what save kept. The buffer only ever shrinks back to
// a size it had, within its capacity; when it grows back (a truncation
// refused), s.old holds every byte between the two sizes.
func (b *buffer) restore(s saved) {
	b.data = b.data[:s.size]
	copy(b.data[s.off:], s.old)
}
