package main

// The machine the figures were taken on, printed above the table.

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"

	"github.com/sessfs/sessfs/fsnode"
)

func printMachine(c *config) {
	cpu := "unknown"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(l, "model name") {
				if i := strings.IndexByte(l, ':'); i >= 0 {
					cpu = strings.TrimSpace(l[i+1:])
				}
				break
			}
		}
	}
	var u syscall.Utsname
	kernel := "unknown"
	if syscall.Uname(&u) == nil {
		kernel = cstr(u.Sysname[:]) + " " + cstr(u.Release[:])
	}
	fsType, dev, mp := mountOf(c.work)
	mode := "full"
	runs := fmt.Sprintf("%d runs per row", c.runs)
	switch {
	case c.scale > 0:
		mode = "scale " + sizeName(c.scale)
		runs = fmt.Sprintf("%d fresh mount(s) for S3–S4, 5 runs of the warm rows", c.runs)
	case c.quick:
		mode = "quick"
	}
	fmt.Printf("sessfs bench (%s, %s, %s)\n", mode, runs, runtime.Version())
	fmt.Printf("cpu:    %s, %d cores\n", cpu, runtime.NumCPU())
	fmt.Printf("kernel: %s\n", kernel)
	if data, err := os.ReadFile("/proc/loadavg"); err == nil {
		// Other work on the machine shows in every row: say how much.
		f := strings.Fields(string(data))
		fmt.Printf("load:   %s %s %s (1, 5, 15 min) at the start\n", f[0], f[1], f[2])
	}
	fmt.Printf("disk:   %s %s on %s (work folder %s)\n\n", fsType, dev, mp, c.work)
}

func cstr(b []int8) string {
	var sb strings.Builder
	for _, c := range b {
		if c == 0 {
			break
		}
		sb.WriteByte(byte(c))
	}
	return sb.String()
}

// mountOf finds the mount holding path in the mount table.
func mountOf(path string) (fsType, dev, mountPoint string) {
	mounts, err := fsnode.MountTable()
	if err != nil {
		return "?", "?", "?"
	}
	best := -1
	for _, m := range mounts {
		if (path == m.Dir || strings.HasPrefix(path, strings.TrimSuffix(m.Dir, "/")+"/")) && len(m.Dir) > best {
			best, fsType, dev, mountPoint = len(m.Dir), m.FSType, m.Source, m.Dir
		}
	}
	return
}
