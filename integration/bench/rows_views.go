package main

// Row 10: the views of many sessions, recent/ and by-project/<p>.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// lsPlain times ls of path, output to /dev/null: no stat of the entries,
// the readdir alone (with what the kernel's READDIRPLUS asks).
func lsPlain(args ...string) float64 {
	cmd := exec.Command("ls", args...)
	t0 := time.Now()
	must(cmd.Run())
	return ms(time.Since(t0))
}

// nativeLinks makes a folder of n symbolic links named as recent/ names
// its entries, the native floor of a view.
func nativeLinks(c *config, name string, n int) string {
	dir := filepath.Join(c.work, name)
	must(os.Mkdir(dir, 0o755))
	width := len(fmt.Sprint(n))
	for i := range n {
		must(os.Symlink(fmt.Sprintf("../s%05d", i), filepath.Join(dir, fmt.Sprintf("%0*d s%05d", width, i+1, i))))
	}
	return dir
}

func rowViews(c *config) []Row {
	st := buildMany(c)
	mnt, _, _ := mountStore(c, st)
	defer unmount(mnt)
	perProject := c.nSessions / projects
	natRecent := nativeLinks(c, "native-recent", c.nSessions)
	natProject := nativeLinks(c, "native-project", perProject)
	project := filepath.Join(mnt, "by-project", "p00", "repo")
	if n := len(must1(os.ReadDir(project))); n != perProject {
		must(fmt.Errorf("by-project/p00/repo lists %d sessions, want %d", n, perProject))
	}
	var sv, nv, sp, np []float64
	for range c.runs {
		sv = append(sv, lsPlain(filepath.Join(mnt, "recent")))
		nv = append(nv, lsPlain("-t", natRecent))
		sp = append(sp, lsPlain(project))
		np = append(np, lsPlain("-t", natProject))
	}
	r := Row{Row: fmt.Sprintf("10a ls MOUNT/recent, %s sessions", count(c.nSessions)), Unit: "ms", Sessfs: stat(sv), Target: "≥ 0.5×",
		Note: "native: ls -t of a folder of as many symlinks"}
	n := stat(nv)
	r.Native = &n
	r.Ratio = n.Median / r.Sessfs.Median
	r.setTarget(r.Ratio, 0.5, true)
	r2 := Row{Row: fmt.Sprintf("10b ls MOUNT/by-project/<p>, %d of %s sessions", perProject, count(c.nSessions)), Unit: "ms", Sessfs: stat(sp), Target: "≥ 0.5×",
		Note: "native: ls -t of a folder of as many symlinks"}
	n2 := stat(np)
	r2.Native = &n2
	r2.Ratio = n2.Median / r2.Sessfs.Median
	r2.setTarget(r2.Ratio, 0.5, true)
	return []Row{r, r2}
}
