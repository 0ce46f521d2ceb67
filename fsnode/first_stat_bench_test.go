package fsnode

import (
	"fmt"
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

// BenchmarkFirstStat is bench-scale's row S3 without the kernel: the size
// of a long session's transcript.md as a fresh mount's first stat works
// it out, from a store that keeps its indexes and sizes (as an import
// leaves it): each op opens the store anew, so nothing is cached but the
// page cache. Run with:
//
//	go test -run '^$' -bench FirstStat -benchmem ./fsnode/
func BenchmarkFirstStat(b *testing.B) {
	for _, turns := range []int{20000, 200000} { // 5.3 messages a turn
		dir := b.TempDir()
		st, err := filestore.Open(dir, filestore.Options{Sync: filestore.SyncNone})
		if err != nil {
			b.Fatal(err)
		}
		s, _, err := st.Create("s", backing.Meta{})
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < turns; i += 1000 {
			if err := s.AppendID("", conversation(1000)); err != nil {
				b.Fatal(err)
			}
		}
		if err := KeepSizes(s); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("turns=%d", turns), func(b *testing.B) {
			var msgs int
			for b.Loop() {
				st, err := filestore.Open(dir, filestore.Options{Sync: filestore.SyncNone})
				if err != nil {
					b.Fatal(err)
				}
				s, _, err := st.Lookup("s")
				if err != nil {
					b.Fatal(err)
				}
				n := newRenderedFile(New(st, Options{}).fsys, branchRef{s: s}, formatMarkdown, 0)
				sp, err := n.span(true)
				if err != nil || sp.size() == 0 {
					b.Fatal(sp.size(), err)
				}
				msgs = sp.v.Len()
			}
			b.ReportMetric(float64(msgs), "messages")
		})
	}
}
