package main

// Rows P1–P5 (issue 15): the PostgreSQL engine through the mount, each
// against the same work done natively on the same server in the same run.
// Each row has a database of its own (P3 and P5 share the one with the
// 100k-message session, made once a run).

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sessfs/sessfs/backing"
)

// pgBigSession is the size of the long session of rows P3 and P5, the
// issue's, in -quick too.
const pgBigSession = 100_000

// skipped is the rows of a step that could not run, saying why.
func skipped(why string, names ...string) []Row {
	var rows []Row
	for _, n := range names {
		rows = append(rows, Row{Row: n, Skipped: true, OK: true, Note: why})
	}
	return rows
}

// appendSession makes a fresh database with one empty session, "a", and
// mounts it, as rows P1 and P2 start: its URL, the mount point, and what
// unmounts and closes it.
func appendSession(c *config) (url, mnt string, done func()) {
	url = pgDatabase()
	st := openPG(url)
	must2(st.Create("a", backing.Meta{}))
	mnt, _, _ = mountStore(c, st)
	return url, mnt, func() {
		unmount(mnt)
		st.Close()
	}
}

// P1: `echo LINE >> MNT/s/append`, one at a time (open, write, close: the
// write returns once the message is committed), against an INSERT of the
// same bytes, committed, from Go.
func rowPGAppend1(c *config) []Row {
	name := "P1 pg durable append (echo >>), 1 writer"
	if why := pgMissing(c); why != "" {
		return skipped(why, name)
	}
	url, mnt, done := appendSession(c)
	defer done()
	conn := plainConn(url, "plain")
	defer conn.Close(context.Background())
	path := filepath.Join(mnt, "a", "append")
	echo := func() time.Duration {
		t0 := time.Now()
		for range c.pgOps {
			f := must1(os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0))
			must1(f.Write(line300))
			must(f.Close())
		}
		return time.Since(t0) / time.Duration(c.pgOps)
	}
	var sv, nv []float64
	for range c.runs {
		sv = append(sv, us(echo()))
		nv = append(nv, us(insertLoop(conn, "plain", line300, c.pgOps)))
	}
	r := Row{Row: name, Unit: "µs/op", Sessfs: stat(sv), Target: "≥ 0.5×",
		Note: "native: INSERT+COMMIT of the same 300 bytes with pgx, same server"}
	n := stat(nv)
	r.Native = &n
	r.Ratio = n.Median / r.Sessfs.Median
	r.setTarget(r.Ratio, 0.5, true)
	return []Row{r}
}

// P2: 8 writers on one branch, each with append open and one message a
// write(2), against 8 connections each doing INSERT+COMMIT.
func rowPGAppend8(c *config) []Row {
	const writers = 8
	name := "P2 pg durable append, 8 writers"
	if why := pgMissing(c); why != "" {
		return skipped(why, name)
	}
	url, mnt, done := appendSession(c)
	defer done()
	conns := make([]*pgx.Conn, writers)
	for i := range conns {
		conns[i] = plainConn(url, "plain")
		defer conns[i].Close(context.Background())
	}
	// parallel runs write(i) c.pgConcOps times on each of the writers at
	// once and returns the messages a second.
	parallel := func(write func(i int) error) float64 {
		var wg sync.WaitGroup
		errs := make([]error, writers)
		t0 := time.Now()
		for i := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range c.pgConcOps {
					if errs[i] = write(i); errs[i] != nil {
						return
					}
				}
			}()
		}
		wg.Wait()
		d := time.Since(t0)
		for _, err := range errs {
			must(err)
		}
		return float64(writers*c.pgConcOps) / d.Seconds()
	}
	var sv, nv []float64
	for range c.runs {
		files := make([]*os.File, writers)
		for i := range files {
			files[i] = must1(os.OpenFile(filepath.Join(mnt, "a", "append"), os.O_WRONLY, 0))
		}
		sv = append(sv, parallel(func(i int) error { _, err := files[i].Write(line300); return err }))
		// Closed before the next step: an open file keeps the unmount
		// from happening.
		for _, f := range files {
			must(f.Close())
		}
		nv = append(nv, parallel(func(i int) error {
			_, err := conns[i].Exec(context.Background(), `INSERT INTO plain (raw) VALUES ($1)`, line300)
			return err
		}))
	}
	r := Row{Row: name, Unit: "msgs/s", Sessfs: stat(sv), Target: "≥ 0.8×",
		Note: "native: 8 connections, INSERT+COMMIT each, one table"}
	n := stat(nv)
	r.Native = &n
	r.Ratio = r.Sessfs.Median / n.Median
	r.setTarget(r.Ratio, 0.8, true)
	return []Row{r}
}

// pgBigURL is the database of rows P3 and P5, made once a run: sessions
// big (pgBigSession messages), two (2) and ten (10).
var pgBigURL string

func pgBig() string {
	if pgBigURL != "" {
		return pgBigURL
	}
	url := pgDatabase()
	st := openPG(url)
	defer st.Close()
	for _, s := range []struct {
		name string
		n    int
	}{{"big", pgBigSession}, {"two", 2}, {"ten", 10}} {
		sess, _ := must2(st.Create(s.name, backing.Meta{}))
		// Through the store's own append, in batches: what a long
		// session's rows look like whichever way they came.
		const batch = 2000
		for i := 0; i < s.n; i += batch {
			var msgs [][]byte
			for j := i; j < min(i+batch, s.n); j++ {
				role := "user"
				if j%2 == 1 {
					role = "assistant"
				}
				msgs = append(msgs, fmt.Appendf(nil, `{"role":"%s","content":"message %d lorem ipsum dolor sit amet"}`, role, j))
			}
			must(sess.AppendID("", msgs))
		}
	}
	pgBigURL = url
	return url
}

// P3: mkdir branches/x of a 100k-message branch against a 2-message one.
func rowPGFork(c *config) []Row {
	name := fmt.Sprintf("P3 pg mkdir branches/x, %s vs 2", count(pgBigSession))
	if why := pgMissing(c); why != "" {
		return skipped(why, name)
	}
	st := openPG(pgBig())
	defer st.Close()
	mnt, _, _ := mountStore(c, st)
	defer unmount(mnt)
	// Warm both sessions' listings, as a user who just looked at them would.
	for _, s := range []string{"big", "two"} {
		must1(os.ReadDir(filepath.Join(mnt, s, "branches")))
	}
	fork := func(s string) float64 {
		p := filepath.Join(mnt, s, "branches", fmt.Sprintf("x%d", time.Now().UnixNano()))
		t0 := time.Now()
		must(os.Mkdir(p, 0o755))
		return ms(time.Since(t0))
	}
	return bigVsSmall(c, name, func() float64 { return fork("big") }, func() float64 { return fork("two") },
		"sessfs column: 100k-message branch; native column: 2-message branch; %d forks each")
}

// bigVsSmall is a row of one step on a big branch (the sessfs column)
// against the same step on a small one (the native column), which must
// take at most 1.5× the time. A step is milliseconds: five a run,
// alternating, so that a moment of other work on the machine moves the
// median less. note takes the number of steps of each.
func bigVsSmall(c *config, name string, big, small func() float64, note string) []Row {
	var bv, sv []float64
	for range 5 * c.runs {
		bv = append(bv, big())
		sv = append(sv, small())
	}
	r := Row{Row: name, Unit: "ms", Sessfs: stat(bv), Target: "≤ 1.5×", Note: fmt.Sprintf(note, len(bv))}
	n := stat(sv)
	r.Native = &n
	r.Ratio = r.Sessfs.Median / n.Median
	r.setTarget(r.Ratio, 1.5, false)
	return []Row{r}
}

// P4: two `sessfs mount` daemons of one database; a message appended
// through one, and the time from the start of its write(2) until a reader
// of messages.jsonl on the other, holding it open as tail -f does, sees
// it. p50 and p99 of c.pgVisible appends a run.
func rowPGVisible(c *config) []Row {
	names := []string{"P4a pg visible on a 2nd mount, p50", "P4b pg visible on a 2nd mount, p99"}
	if why := pgMissing(c); why != "" {
		return skipped(why, names...)
	}
	url := pgDatabase()
	st := openPG(url)
	must2(st.Create("v", backing.Meta{}))
	st.Close()
	bin := buildSessfs(c)
	a, b := mountDaemon(c, bin, url), mountDaemon(c, bin, url)
	defer unmountDaemon(a)
	defer unmountDaemon(b)
	var p50, p99 []float64
	seq := 0
	for range c.runs {
		w := must1(os.OpenFile(filepath.Join(a.mnt, "v", "append"), os.O_WRONLY, 0))
		r := must1(os.Open(filepath.Join(b.mnt, "v", "messages.jsonl")))
		seen := must1(r.Stat()).Size()
		var lat []float64
		for range c.pgVisible {
			seq++
			marker := fmt.Appendf(nil, "visible-%d-", seq)
			line := fmt.Appendf(nil, `{"role":"user","content":"%s"}`+"\n", marker)
			t0 := time.Now()
			must1(w.Write(line))
			seen = waitFor(r, seen, marker, t0)
			lat = append(lat, ms(time.Since(t0)))
			// Apart, as a person's or an agent's appends are: each
			// append is measured on its own, not queued behind the last.
			time.Sleep(20 * time.Millisecond)
		}
		must(w.Close())
		must(r.Close())
		sort.Float64s(lat)
		p50 = append(p50, percentile(lat, 0.50))
		p99 = append(p99, percentile(lat, 0.99))
	}
	note := fmt.Sprintf("%d appends a run; from write(2) on one daemon's mount until fstat+pread of an open messages.jsonl on the other's shows it", c.pgVisible)
	r50 := Row{Row: names[0], Unit: "ms", Sessfs: stat(p50), Target: "< 1000 ms", Note: note}
	r50.Ratio = r50.Sessfs.Median
	r50.setTarget(r50.Ratio, 1000, false)
	r99 := Row{Row: names[1], Unit: "ms", Sessfs: stat(p99), Target: "< 1000 ms"}
	r99.Ratio = r99.Sessfs.Median
	r99.setTarget(r99.Ratio, 1000, false)
	return []Row{r50, r99}
}

// waitFor polls the open file f, read up to seen bytes, every 100 µs
// until its bytes past seen hold marker, and returns its new size; it
// fails after 10 s from t0.
func waitFor(f *os.File, seen int64, marker []byte, t0 time.Time) int64 {
	var tail []byte
	for {
		size := must1(f.Stat()).Size()
		if size > seen {
			buf := make([]byte, size-seen)
			n := must1(f.ReadAt(buf, seen))
			tail = append(tail, buf[:n]...)
			seen += int64(n)
			if bytes.Contains(tail, marker) {
				return seen
			}
		}
		if time.Since(t0) > 10*time.Second {
			must(fmt.Errorf("an append on one mount was not visible on the other within 10 s"))
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// percentile is the p-quantile of sorted xs, the nearest rank.
func percentile(sorted []float64, p float64) float64 {
	i := int(float64(len(sorted))*p+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// P5: `tail -n 20 transcript.md` right after an append, of a 100k-message
// branch against a 10-message one, as row 5 does with the file engine.
func rowPGTail(c *config) []Row {
	name := fmt.Sprintf("P5 pg tail -n 20 after append, %s vs 10", count(pgBigSession))
	if why := pgMissing(c); why != "" {
		return skipped(why, name)
	}
	st := openPG(pgBig())
	defer st.Close()
	mnt, _, _ := mountStore(c, st)
	defer unmount(mnt)
	tail := func(s string) float64 {
		p := filepath.Join(mnt, s, "transcript.md")
		readAll(p) // read once, as a reader following the session has
		a := must1(os.OpenFile(filepath.Join(mnt, s, "append"), os.O_WRONLY, 0))
		must1(a.Write(line300))
		must(a.Close())
		cmd := exec.Command("tail", "-n", "20", p)
		cmd.Stderr = os.Stderr
		t0 := time.Now()
		out := must1(cmd.Output())
		d := time.Since(t0)
		if !bytes.Contains(out, []byte("lazy dog")) {
			must(fmt.Errorf("tail -n 20 %s does not show the message just appended", p))
		}
		return ms(d)
	}
	return bigVsSmall(c, name, func() float64 { return tail("big") }, func() float64 { return tail("ten") },
		"sessfs column: 100k-message branch; native column: 10-message branch; the tail program, exec included; %d tails each")
}
