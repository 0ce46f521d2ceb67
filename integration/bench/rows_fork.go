package main

// Row 6: forking a session with mkdir branches/x, and what a fork adds to
// the store.

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

func rowFork(c *config) []Row {
	st := newStore(c, filestore.Options{})
	big, _ := must2(st.Create("big", backing.Meta{}))
	must2(st.Create("empty", backing.Meta{}))
	fill(big, c.bigSession, "")
	st = reopen(st)
	mnt, _, _ := mountStore(c, st)
	defer unmount(mnt)
	// Warm both sessions' listings, as a user who just looked at them would.
	for _, s := range []string{"big", "empty"} {
		must1(os.ReadDir(filepath.Join(mnt, s, "branches")))
	}
	fork := func(s string, i int) float64 {
		p := filepath.Join(mnt, s, "branches", fmt.Sprintf("x%d", i))
		t0 := time.Now()
		must(os.Mkdir(p, 0o755))
		return ms(time.Since(t0))
	}
	var bv, ev []float64
	before := treeBytes(st.Root())
	for i := range c.runs {
		bv = append(bv, fork("big", i))
	}
	grow := float64(treeBytes(st.Root())-before) / float64(c.runs)
	for i := range c.runs {
		ev = append(ev, fork("empty", i))
	}
	r := Row{Row: fmt.Sprintf("6 mkdir branches/x, %s vs empty", count(c.bigSession)), Unit: "ms", Sessfs: stat(bv),
		Target: "≤ 1.5×", Note: "sessfs column: big session; native column: empty session"}
	n := stat(ev)
	r.Native = &n
	r.Ratio = r.Sessfs.Median / n.Median
	r.setTarget(r.Ratio, 1.5, false)
	g := Row{Row: "6b store growth per fork", Unit: "bytes", Sessfs: Stat{grow, grow, grow}, Target: "< 4096 B",
		Note: "apparent size of the files added (not blocks)"}
	g.Ratio = grow
	g.setTarget(grow, 4096, false)
	return []Row{r, g}
}
