package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startProfile writes a CPU profile of the whole run to the file
// $SESSFS_CPUPROFILE names, for measuring a command on real data (go tool
// pprof); the returned function ends it. Not a flag: it is for whoever
// works on sessfs, not a part of any command.
func startProfile() func() {
	path := os.Getenv("SESSFS_CPUPROFILE")
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
