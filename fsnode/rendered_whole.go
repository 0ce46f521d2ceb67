package fsnode

import (
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/sessfs/sessfs/backing"
)

// splitMin is the least a read's whole pieces must come to before their
// rendering is split among the CPUs: below it a goroutine's start and
// wait cost more than they save.
const splitMin = 16 << 10

// readCPUs is how many goroutines may render one read's pieces.
var readCPUs = runtime.NumCPU()

// appendWhole renders msgs, pieces that a read covers whole, into buf;
// off holds their offsets in the rendering (off[k] the start of msgs[k],
// off[len(msgs)] the end of the last).
//
// A first cat of a long file waits for its reads one at a time, the
// kernel's read-ahead letting at most one more run beside it: most of
// the CPUs would sit idle. The sizes are known, so each CPU renders its
// share of the pieces straight into its own part of the answer. The bytes
// are those of one rendering in order, whatever the split.
func (n *renderedFile) appendWhole(sp span, buf []byte, msgs []backing.Message, off []int64) ([]byte, error) {
	total := off[len(msgs)] - off[0]
	parts := min(readCPUs, len(msgs), int(total/splitMin))
	if parts < 2 {
		return n.appendPieces(sp, buf, msgs, off)
	}
	// Split by bytes, so each part takes about as long.
	bounds := make([]int, parts+1)
	for k := 1; k < parts; k++ {
		at := off[0] + total*int64(k)/int64(parts)
		bounds[k] = max(bounds[k-1], sort.Search(len(msgs), func(i int) bool { return off[i] >= at }))
	}
	bounds[parts] = len(msgs)
	base := len(buf)
	buf = slices.Grow(buf, int(total)) // the answer has room already, unless a piece outgrew its size
	region := buf[base : base+int(total)]
	rendered := make([][]byte, parts)
	errs := make([]error, parts)
	var wg sync.WaitGroup
	render := func(k int) {
		a, b := bounds[k], bounds[k+1]
		lo, hi := off[a]-off[0], off[b]-off[0]
		rendered[k], errs[k] = n.appendPieces(sp, region[lo:lo:hi], msgs[a:b], off[a:b+1])
	}
	for k := 1; k < parts; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			render(k)
		}()
	}
	render(0) // this goroutine's share
	wg.Wait()
	// Each part is in its place unless a message changed under the sizes
	// (a repair): then it is moved up to the one before it, never past its
	// own part.
	end := 0
	for k, r := range rendered {
		if errs[k] != nil {
			return buf, errs[k]
		}
		if len(r) > 0 && &r[0] != &region[end] {
			copy(region[end:], r)
		}
		end += len(r)
	}
	return buf[:base+end], nil
}

// appendPieces renders msgs, read whole, into buf one after the other.
// A repair (fsck) can change a message under the sizes: a piece never
// takes more than its size.
func (n *renderedFile) appendPieces(sp span, buf []byte, msgs []backing.Message, off []int64) ([]byte, error) {
	for k, m := range msgs {
		at, want := len(buf), int(off[k+1]-off[k])
		var err error
		if buf, err = sp.sizes.appendPiece(buf, sp.v, m, n.format); err != nil {
			return buf, err
		}
		buf = buf[:at+min(len(buf)-at, want)]
	}
	return buf, nil
}
