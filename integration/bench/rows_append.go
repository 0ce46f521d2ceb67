package main

// Rows 1–3: appends through the mount, against write(+fsync) to a native
// file.

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

func rowAppend1(c *config) []Row {
	return []Row{appendRow(c, filestore.Options{}, true, "1 durable append, 1 writer", 0.7)}
}

func rowAppendNoSync(c *config) []Row {
	return []Row{appendRow(c, filestore.Options{Sync: filestore.SyncNone}, false, "3 append, no durability", 0.3)}
}

func appendRow(c *config, opts filestore.Options, sync bool, name string, target float64) Row {
	st := newStore(c, opts)
	must2(st.Create("a", backing.Meta{}))
	mnt, _, _ := mountStore(c, st)
	defer unmount(mnt)
	native := must1(os.OpenFile(filepath.Join(c.work, fmt.Sprintf("native-%d.jsonl", storeSeq)), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600))
	defer native.Close()
	var sv, nv []float64
	for range c.runs {
		f := must1(os.OpenFile(filepath.Join(mnt, "a", "append"), os.O_WRONLY, 0))
		sv = append(sv, us(appendLoop(f, c.appendOps, false)))
		must(f.Close())
		nv = append(nv, us(appendLoop(native, c.appendOps, sync)))
	}
	r := Row{Row: name, Unit: "µs/op", Sessfs: stat(sv), Target: fmt.Sprintf("≥ %.1f×", target)}
	n := stat(nv)
	r.Native = &n
	r.Ratio = n.Median / r.Sessfs.Median
	r.setTarget(r.Ratio, target, true)
	if sync {
		r.Note = "native: write+fsync"
	} else {
		r.Note = "native: write only"
	}
	return r
}

func rowAppend8(c *config) []Row {
	const writers = 8
	st := newStore(c, filestore.Options{})
	must2(st.Create("a", backing.Meta{}))
	mnt, _, _ := mountStore(c, st)
	defer unmount(mnt)
	native := must1(os.OpenFile(filepath.Join(c.work, "native-8.jsonl"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600))
	defer native.Close()
	parallel := func(open func() *os.File, fsync bool) float64 {
		files := make([]*os.File, writers)
		for i := range files {
			files[i] = open()
		}
		var wg sync.WaitGroup
		errs := make([]error, writers)
		t0 := time.Now()
		for i := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range c.concOps {
					if _, err := files[i].Write(line300); err != nil {
						errs[i] = err
						return
					}
					if fsync {
						if err := files[i].Sync(); err != nil {
							errs[i] = err
							return
						}
					}
				}
			}()
		}
		wg.Wait()
		d := time.Since(t0)
		// Close what this run opened on the mount: an open file would keep
		// the unmount from happening, and a process exiting with a file
		// of its own mount open hangs in close.
		for _, f := range files {
			if f != native {
				must(f.Close())
			}
		}
		for _, err := range errs {
			must(err)
		}
		return float64(writers*c.concOps) / d.Seconds()
	}
	var sv, nv []float64
	for range c.runs {
		sv = append(sv, parallel(func() *os.File {
			return must1(os.OpenFile(filepath.Join(mnt, "a", "append"), os.O_WRONLY, 0))
		}, false))
		nv = append(nv, parallel(func() *os.File { return native }, true))
	}
	r := Row{Row: "2 durable append, 8 writers", Unit: "msgs/s", Sessfs: stat(sv), Target: "≥ 2×",
		Note: "native: 8 writers, write+fsync, one file"}
	n := stat(nv)
	r.Native = &n
	r.Ratio = r.Sessfs.Median / n.Median
	r.setTarget(r.Ratio, 2, true)
	return []Row{r}
}
