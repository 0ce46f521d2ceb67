package fsnode

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// A read's whole pieces rendered by several goroutines come out as one
// rendering in order, at any offset, in every format.
func TestReadSplitSameBytes(t *testing.T) {
	defer func(n int) { readCPUs = n }(readCPUs)
	st := newStore(t)
	s, _, err := st.Create("s", backing.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	var lines [][]byte
	for i := range 3000 {
		role := []string{"user", "assistant"}[i%2]
		lines = append(lines, fmt.Appendf(nil, `{"role":%q,"content":%q}`, role, strings.Repeat("word ", 1+rnd.IntN(200))))
	}
	if err := s.AppendID("", lines); err != nil {
		t.Fatal(err)
	}
	for _, cpus := range []int{1, 2, 3, 8} {
		readCPUs = cpus
		for _, f := range []format{formatMarkdown, formatHTML, formatJSONL, formatJSON} {
			n := newRenderedFile(New(st, Options{}).fsys, branchRef{s: s}, f, 0)
			sp, err := n.span(true)
			if err != nil {
				t.Fatal(err)
			}
			want := append(append(append([]byte(nil), sp.head...), allPieces(t, sp.v, f)...), sp.tail...)
			for _, size := range []int64{128 << 10, 300 << 10, 77777} {
				var got []byte
				for off := int64(0); off < sp.size(); off += size {
					dest := make([]byte, size)
					r, errno := n.Read(nil, nil, dest, off)
					if errno != 0 {
						t.Fatal(errno)
					}
					b, _ := r.Bytes(dest)
					got = append(got, b...)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%d CPUs, format %d, reads of %d: %d bytes unlike the rendering's %d", cpus, f, size, len(got), len(want))
				}
			}
		}
	}
}

// When messages changed under the sizes (only a repair does that), the
// parts close up as one goroutine's rendering would: each piece cut at its
// size, a shorter one followed at once by the next.
func TestReadSplitSizesWrong(t *testing.T) {
	defer func(n int) { readCPUs = n }(readCPUs)
	st := newStore(t)
	s, _, err := st.Create("s", backing.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	var lines [][]byte
	for i := range 400 {
		lines = append(lines, fmt.Appendf(nil, `{"role":"user","content":"%d %s"}`, i, strings.Repeat("x", 300)))
	}
	if err := s.AppendID("", lines); err != nil {
		t.Fatal(err)
	}
	n := newRenderedFile(New(st, Options{}).fsys, branchRef{s: s}, formatMarkdown, 0)
	sp, err := n.span(true)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := sp.v.Read(0, sp.v.Len())
	if err != nil {
		t.Fatal(err)
	}
	// Sizes that lie: some pieces said shorter than they render, some longer.
	rnd := rand.New(rand.NewPCG(3, 4))
	off := []int64{0}
	for k := range msgs {
		size := sp.off[k+1] - sp.off[k] + int64(rnd.IntN(201)) - 100
		off = append(off, off[k]+size)
	}
	readCPUs = 1
	want, err := n.appendWhole(sp, nil, msgs, off)
	if err != nil {
		t.Fatal(err)
	}
	for _, cpus := range []int{2, 3, 7} {
		readCPUs = cpus
		got, err := n.appendWhole(sp, make([]byte, 5, 5+off[len(msgs)]), msgs, off)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[5:], want) {
			t.Errorf("%d CPUs: %d bytes unlike one goroutine's %d", cpus, len(got)-5, len(want))
		}
	}
}
