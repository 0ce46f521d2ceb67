package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startProfile writes a CPU profile of the whole run to the file
// $SESSFS_CPUPROFILE names, and the heap as the run ends (what is still
// held: a mount's caches after its reads) to the file $SESSFS_MEMPROFILE
// names, for measuring a command on real data (go tool pprof); the
// returned function ends them. Not flags: they are for whoever works on
// sessfs, not a part of any command.
func startProfile() func() {
	stopCPU := startCPUProfile(os.Getenv("SESSFS_CPUPROFILE"))
	heap := os.Getenv("SESSFS_MEMPROFILE")
	return func() {
		stopCPU()
		if heap != "" {
			writeHeapProfile(heap)
		}
	}
}

func startCPUProfile(path string) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "sessfs: SESSFS_CPUPROFILE: %v\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

func writeHeapProfile(path string) {
	f, err := os.Create(path)
	if err == nil {
		err = pprof.Lookup("heap").WriteTo(f, 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "sessfs: SESSFS_MEMPROFILE: %v\n", err)
	}
}
