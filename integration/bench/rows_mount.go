package main

// Row 9: mount time and the memory a mount keeps.

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
)

func vmRSS() int64 {
	data := must1(os.ReadFile("/proc/self/status"))
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			f := strings.Fields(l)
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

func rowMount(c *config) []Row {
	var mv []float64
	var mnt string
	for i := range c.runs {
		st := buildMany(c)
		m, _, d := mountStore(c, st)
		mv = append(mv, ms(d))
		if i < c.runs-1 {
			must(unmount(m))
		} else {
			mnt = m
		}
	}
	defer unmount(mnt)
	r := Row{Row: fmt.Sprintf("9a mount, %s sessions", count(c.nSessions)), Unit: "ms", Sessfs: stat(mv), Target: "< 200 ms",
		Note: "fs.Mount to first stat of the root"}
	r.Ratio = r.Sessfs.Median
	r.setTarget(r.Sessfs.Median, 200, false)

	runtime.GC()
	debug.FreeOSMemory()
	ents := must1(os.ReadDir(mnt))
	msgs := 0
	for _, e := range ents {
		// s00000, s00001, …: not the views beside them (search/).
		if n := e.Name(); strings.HasPrefix(n, "s") && strings.Trim(n[1:], "0123456789") == "" {
			readAll(filepath.Join(mnt, e.Name(), "transcript.md"))
			msgs += c.msgsPerSess
		}
	}
	// What the daemon keeps, not the garbage the reads left for the next
	// collection: a long-running mount returns that to the system.
	runtime.GC()
	debug.FreeOSMemory()
	rss := float64(vmRSS()) / (1 << 20)
	limit := 100 + float64(16*msgs)/(1<<20)
	r2 := Row{Row: fmt.Sprintf("9b RSS after reading all, %s msgs", count(msgs)), Unit: "MiB", Sessfs: Stat{rss, rss, rss},
		Target: fmt.Sprintf("< %.0f MiB", limit), Note: "VmRSS of the bench process (mount in-process), after a GC"}
	r2.Ratio = rss
	r2.setTarget(rss, limit, false)
	return []Row{r, r2}
}
