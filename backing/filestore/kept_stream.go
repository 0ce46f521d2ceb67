package filestore

import "io"

// keptStream reads a kept file (a log's kept index) through one small
// buffer, record by record, instead of whole: a long session's index is
// tens of MB, and a fresh process pays for fresh memory in page faults
// (about 0.5 ms a MB on a 2-core VM), more than for reading the bytes.
type keptStream struct {
	r    io.Reader
	buf  []byte
	p, n int   // buf[p:n] is read and not consumed
	left int64 // bytes of the file not consumed, as it was opened: a bound for allocations
	err  error // of the last read; io.EOF at the end
}

// keptChunk is the buffer's size: more than any record's head (6 uvarints,
// and 3 a bad line for at most maxKeptBad of them).
const keptChunk = 64 << 10

func newKeptStream(r io.Reader, size int64) *keptStream {
	return &keptStream{r: r, buf: make([]byte, keptChunk), left: size}
}

// peek returns the unconsumed bytes read, at least want of them unless
// the file ends first (or cannot be read: the caller then sees a torn
// record).
func (k *keptStream) peek(want int) []byte {
	if k.n-k.p >= want || k.err != nil {
		return k.buf[k.p:k.n]
	}
	k.n = copy(k.buf, k.buf[k.p:k.n])
	k.p = 0
	if want > len(k.buf) {
		k.buf = append(k.buf[:k.n], make([]byte, want-k.n)...)
	}
	for k.n < want && k.err == nil {
		var m int
		m, k.err = k.r.Read(k.buf[k.n:])
		k.n += m
	}
	return k.buf[k.p:k.n]
}

// consume drops the first n bytes peek returned.
func (k *keptStream) consume(n int) {
	k.p += n
	k.left -= int64(n)
}

// atEnd reports whether every byte of the file has been consumed.
func (k *keptStream) atEnd() bool { return len(k.peek(1)) == 0 }
