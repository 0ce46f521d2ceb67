package main

// Rows 4 and 5: reading transcripts, whole and at the tail.

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
	"github.com/sessfs/sessfs/fsnode"
)

func rowCat(c *config) []Row {
	st := newStore(c, filestore.Options{})
	s, _ := must2(st.Create("big", backing.Meta{}))
	fill(s, c.catSession, "")
	// fill writes the log itself: keep the sizes as an import or a mount
	// leaves them, so that every run reads the store a user has, not the
	// first a store that never kept them.
	must(fsnode.KeepSizes(s))
	var first, warm, nat []float64
	var size int64
	nativePath := filepath.Join(c.work, "native-transcript.md")
	for i := range c.runs {
		st = reopen(st)
		mnt, _, _ := mountStore(c, st)
		p := filepath.Join(mnt, "big", "transcript.md")
		t0 := time.Now()
		size = readAll(p)
		first = append(first, float64(size)/1e6/time.Since(t0).Seconds())
		t0 = time.Now()
		readAll(p)
		warm = append(warm, ms(time.Since(t0)))
		if i == 0 {
			// A native file of the same size and content.
			in := must1(os.Open(p))
			out := must1(os.Create(nativePath))
			must1(io.Copy(out, in))
			in.Close()
			must(out.Close())
			readAll(nativePath)
		}
		must(unmount(mnt))
		t0 = time.Now()
		readAll(nativePath)
		nat = append(nat, ms(time.Since(t0)))
	}
	r1 := Row{Row: fmt.Sprintf("4a cat transcript %s msgs, first", count(c.catSession)), Unit: "MB/s", Sessfs: stat(first), Target: "≥ 200 MB/s",
		Note: fmt.Sprintf("%.1f MB, fresh mount, its sizes kept (as sessfs import leaves them)", float64(size)/1e6)}
	r1.Ratio = r1.Sessfs.Median
	r1.setTarget(r1.Sessfs.Median, 200, true)
	r2 := Row{Row: fmt.Sprintf("4b cat transcript %s msgs, warm", count(c.catSession)), Unit: "ms", Sessfs: stat(warm), Target: "≥ 0.5×",
		Note: "native: read of a file of equal size, page cache"}
	n := stat(nat)
	r2.Native = &n
	r2.Ratio = n.Median / r2.Sessfs.Median
	r2.setTarget(r2.Ratio, 0.5, true)
	return []Row{r1, r2}
}

func rowTail(c *config) []Row {
	st := newStore(c, filestore.Options{})
	big, _ := must2(st.Create("big", backing.Meta{}))
	small, _ := must2(st.Create("small", backing.Meta{}))
	fill(big, c.bigSession, "")
	fill(small, 10, "")
	st = reopen(st)
	mnt, _, _ := mountStore(c, st)
	defer unmount(mnt)
	tail := func(name string) float64 {
		p := filepath.Join(mnt, name, "transcript.md")
		readAll(p)
		a := must1(os.OpenFile(filepath.Join(mnt, name, "append"), os.O_WRONLY, 0))
		must1(a.Write(line300))
		must(a.Close())
		buf := make([]byte, 4096)
		t0 := time.Now()
		f := must1(os.Open(p))
		fi := must1(f.Stat())
		off := max(fi.Size()-4096, 0)
		must1(f.ReadAt(buf[:fi.Size()-off], off))
		d := time.Since(t0)
		f.Close()
		return us(d)
	}
	var bv, sv []float64
	for range c.runs {
		bv = append(bv, tail("big"))
		sv = append(sv, tail("small"))
	}
	r := Row{Row: fmt.Sprintf("5 tail 4 KiB after append, %s vs 10", count(c.bigSession)), Unit: "µs", Sessfs: stat(bv),
		Target: "≤ 1.5×", Note: "sessfs column: big session; native column: 10-message session; open+fstat+pread"}
	n := stat(sv)
	r.Native = &n
	r.Ratio = r.Sessfs.Median / n.Median
	r.setTarget(r.Ratio, 1.5, false)
	return []Row{r}
}
