package main

// Rows 7 and 8: listing many sessions and grepping their transcripts.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

var manyStore *filestore.Store // rows 7, 9 and 10 share one store

// projects is how many projects the sessions of manyStore are in.
const projects = 100

func buildMany(c *config) *filestore.Store {
	if manyStore != nil {
		return reopen(manyStore)
	}
	st := newStore(c, filestore.Options{})
	t0 := time.Now()
	for i := range c.nSessions {
		// Each in one of 100 projects, for by-project/ (row 10).
		m := backing.Meta{Cwd: fmt.Sprintf("/home/u/p%02d/repo", i%projects)}
		s, _ := must2(st.Create(fmt.Sprintf("s%05d", i), m))
		fill(s, c.msgsPerSess, "")
	}
	fmt.Fprintf(os.Stderr, "  made %d sessions in %.1fs\n", c.nSessions, time.Since(t0).Seconds())
	manyStore = st
	return reopen(st)
}

func rowLs(c *config) []Row {
	st := buildMany(c)
	mnt, _, _ := mountStore(c, st)
	defer unmount(mnt)
	nat := filepath.Join(c.work, "native-ls")
	must(os.Mkdir(nat, 0o755))
	for i := range c.nSessions {
		must(os.Mkdir(filepath.Join(nat, fmt.Sprintf("s%05d", i)), 0o755))
	}
	one := filepath.Join(c.work, "native-one")
	must(os.Mkdir(one, 0o755))
	for _, f := range []string{"meta.json", "transcript.md", "messages.jsonl", "append"} {
		must(os.WriteFile(filepath.Join(one, f), []byte("x"), 0o600))
	}
	must(os.Mkdir(filepath.Join(one, "branches"), 0o755))
	must(os.Mkdir(filepath.Join(one, "turns"), 0o755))
	var sv, nv, s1, n1 []float64
	for range c.runs {
		sv = append(sv, lsL(mnt))
		nv = append(nv, lsL(nat))
		s1 = append(s1, lsL(filepath.Join(mnt, "s00000")))
		n1 = append(n1, lsL(one))
	}
	r := Row{Row: fmt.Sprintf("7a ls -l MOUNT, %s sessions", count(c.nSessions)), Unit: "ms", Sessfs: stat(sv), Target: "≥ 0.3×",
		Note: "native: folder of as many folders"}
	n := stat(nv)
	r.Native = &n
	r.Ratio = n.Median / r.Sessfs.Median
	r.setTarget(r.Ratio, 0.3, true)
	r2 := Row{Row: "7b ls -l one session folder", Unit: "ms", Sessfs: stat(s1), Target: "≥ 0.3×",
		Note: "native: folder with the same 6 entries"}
	n2 := stat(n1)
	r2.Native = &n2
	r2.Ratio = n2.Median / r2.Sessfs.Median
	r2.setTarget(r2.Ratio, 0.3, true)
	return []Row{r, r2}
}

func rowGrep(c *config) []Row {
	st := newStore(c, filestore.Options{})
	for i := range c.grepSess {
		s, _ := must2(st.Create(fmt.Sprintf("g%04d", i), backing.Meta{}))
		needle := ""
		if i%10 == 0 {
			needle = "zanzibar"
		}
		fill(s, c.grepMsgs, needle)
	}
	st = reopen(st)
	mnt, _, _ := mountStore(c, st)
	defer unmount(mnt)
	ents := must1(os.ReadDir(mnt))
	args := []string{"-rl", "zanzibar"}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "g") {
			args = append(args, filepath.Join(mnt, e.Name(), "transcript.md"))
		}
	}
	grep := func(args ...string) float64 {
		cmd := exec.Command("grep", args...)
		t0 := time.Now()
		must(cmd.Run())
		return ms(time.Since(t0))
	}
	var sv, nv []float64
	for range c.runs {
		sv = append(sv, grep(args...))
		nv = append(nv, grep("-rl", "zanzibar", filepath.Join(st.Root(), "sessions")))
	}
	r := Row{Row: fmt.Sprintf("8 grep -rl, %s sessions", count(c.grepSess)), Unit: "ms", Sessfs: stat(sv), Target: "≥ 0.5×",
		Note: fmt.Sprintf("%d msgs each; native: grep -rl over the store's sessions/", c.grepMsgs)}
	n := stat(nv)
	r.Native = &n
	r.Ratio = n.Median / r.Sessfs.Median
	r.setTarget(r.Ratio, 0.5, true)
	return []Row{r}
}
