package main

// -scale SIZE (make bench-scale): a store of SIZE of realistic Claude Code
// sessions, imported and read through the sessfs binary, against the same
// work done natively on the sources in the same run. The rows (S1–S8) are
// the table of issue 18; what is measured, and the ratio's sense, is in
// each row's note.

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// parseSize reads 200M, 1G, 500K or a count of bytes; K, M and G are
// decimal (10^3, 10^6, 10^9), as the MB/s of the table.
func parseSize(s string) (int64, error) {
	given := s
	mult := int64(1)
	switch strings.ToUpper(s[len(s)-1:]) {
	case "K":
		mult = 1e3
	case "M":
		mult = 1e6
	case "G":
		mult = 1e9
	}
	if mult > 1 {
		s = s[:len(s)-1]
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("-scale %q: want a size such as 200M or 1G", given)
	}
	return int64(v * float64(mult)), nil
}

// sizeName is size as -scale takes it: 1G, 200M.
func sizeName(n int64) string {
	switch {
	case n >= 1e9 && n%1e9 == 0:
		return fmt.Sprintf("%dG", n/1e9)
	case n >= 1e6 && n%1e6 == 0:
		return fmt.Sprintf("%dM", n/1e6)
	case n >= 1e3 && n%1e3 == 0:
		return fmt.Sprintf("%dK", n/1e3)
	}
	return strconv.FormatInt(n, 10)
}

// rssPer10GB is the bound on the daemon after reading every file
// of a 10 GB store.
const rssPer10GB = 200

// s8Files are the files S8 reads of every session: each rendering of a
// whole branch, and its stored lines.
var s8Files = []string{"transcript.md", "transcript.html", "messages.jsonl", "export.json"}

func runScale(c *config, size int64) (rows []Row, err error) {
	// As run: an error inside panics with benchErr, and everything is
	// unmounted on the way out (main's unmountAll).
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(benchErr); ok {
				err = e.err
				return
			}
			unmountAll()
			panic(r)
		}
	}()
	step := func(what string, t0 time.Time) {
		fmt.Fprintf(os.Stderr, "  %-52s (%.1fs)\n", what, time.Since(t0).Seconds())
	}

	// Setup: the binary a user runs, and the sources.
	t0 := time.Now()
	bin := buildSessfs(c)
	step("built the sessfs binary", t0)
	t0 = time.Now()
	src := must1(generate(c.work, size))
	step(fmt.Sprintf("made %d sessions, %.0f MB (long one %.0f MB)", len(src.files), mb(src.bytes), mb(src.longSize)), t0)
	sizeStr := fmt.Sprintf("%.0f MB", mb(src.bytes))

	// S1: import into a fresh store, against reading and hashing the
	// same files. The sources were just written, so all three read them
	// from the page cache: the floors are CPU-bound.
	var catMBs, shaS []float64
	for range 3 {
		catMBs = append(catMBs, mb(src.bytes)/timeCmd(onFiles(src.files, "cat")).Seconds())
		shaS = append(shaS, timeCmd(onFiles(src.files, "sha256sum")).Seconds())
	}
	store := filepath.Join(c.work, "store")
	t0 = time.Now()
	names := importAll(bin, store, src.root)
	imp := time.Since(t0)
	step("imported", t0)
	checkImport(bin, store, src, names)

	impMBs := mb(src.bytes) / imp.Seconds()
	r := Row{Row: "S1a import, " + sizeStr, Unit: "MB/s", Sessfs: one(impMBs), Native: ptr(stat(catMBs)), Target: "≥ 100 MB/s",
		Note: fmt.Sprintf("sessfs import of %d files into a fresh store (%.1fs); native: cat of the same files > /dev/null; ratio: sessfs/native speed", len(src.files), imp.Seconds())}
	r.Ratio = impMBs / r.Native.Median
	r.setTarget(impMBs, 100, true)
	rows = append(rows, r)
	r = Row{Row: "S1b import against read+hash", Unit: "s", Sessfs: one(imp.Seconds()), Native: ptr(stat(shaS)), Target: "≥ 0.5× (≤ 2× the time)",
		Note: "native: sha256sum of the same files; ratio: native time / sessfs time"}
	r.Ratio = r.Native.Median / imp.Seconds()
	r.setTarget(r.Ratio, 0.5, true)
	rows = append(rows, r)

	// S2: the store against its sources, apparent bytes and disk blocks.
	sa, sb := du(store)
	na, nb := du(src.root)
	ia, _ := du(filepath.Join(store, "index"))
	for _, s := range []struct {
		id, what    string
		store, srcs int64
		target      float64
		how         string
	}{
		{"S2a", "uncompressed", sa, na, 1.05, "apparent bytes, a sealed log's once (its plain log's size): the store as it would be unsealed"},
		{"S2b", "on disk", sb, nb, 0.35, "st_blocks × 512, as du without --apparent-size: sealed logs compressed, their plain start punched out"},
	} {
		r := Row{Row: fmt.Sprintf("%s store size, %s", s.id, s.what), Unit: "MB", Sessfs: one(mb(s.store)), Native: ptr(one(mb(s.srcs))),
			Target: fmt.Sprintf("≤ %.2f×", s.target), Note: fmt.Sprintf("du of the whole store right after the import (index/ %.1f MB of it: the import leaves the search index to the first mount, S8) against du of the sources; ratio: store / sources; %s", mb(ia), s.how)}
		r.Ratio = float64(s.store) / float64(s.srcs)
		r.setTarget(r.Ratio, s.target, false)
		rows = append(rows, r)
	}

	// S3, S4: the first stat and the first read of the long session's
	// transcript.md on a fresh mount, -runs mounts.
	var d *daemon
	var statMs, firstMBs []float64
	var tsize int64
	for i := range c.runs {
		if d != nil {
			must(unmountDaemon(d))
		}
		d = mountDaemon(c, bin, store)
		p := filepath.Join(d.mnt, src.longName, "transcript.md")
		start := time.Now()
		t0 := start
		fi := must1(os.Stat(p))
		statMs = append(statMs, ms(time.Since(t0)))
		t0 = time.Now()
		tsize = readAll(p)
		firstMBs = append(firstMBs, mb(tsize)/time.Since(t0).Seconds())
		if tsize != fi.Size() {
			must(fmt.Errorf("%s: stat said %d bytes, a read gave %d", p, fi.Size(), tsize))
		}
		step(fmt.Sprintf("fresh mount %d: stat and first cat of the long transcript", i+1), start)
	}
	idleRSS := procStatus(d.pid(), "VmRSS") // after the long transcript only
	var nStat, nRead []float64
	for range 5 {
		t0 := time.Now()
		must1(os.Stat(src.long))
		nStat = append(nStat, ms(time.Since(t0)))
		t0 = time.Now()
		n := readAll(src.long)
		nRead = append(nRead, mb(n)/time.Since(t0).Seconds())
	}
	longNote := fmt.Sprintf("%s: %.0f MB of source, transcript.md %.1f MB", src.longName, mb(src.longSize), mb(tsize))
	r = Row{Row: "S3 first stat, long transcript.md", Unit: "ms", Sessfs: stat(statMs), Native: ptr(stat(nStat)), Target: "< 50 ms",
		Note: longNote + ", fresh mount; native: stat of its source; ratio: native time / sessfs time. " +
			"From S3 on, the mount builds the store's search index in the background from its start (a mount keeps it, and the import leaves it to be built), as a user's first mount after an import does"}
	r.Ratio = r.Native.Median / r.Sessfs.Median
	r.setTarget(r.Sessfs.Median, 50, false)
	rows = append(rows, r)
	r = Row{Row: "S4 first cat, long transcript.md", Unit: "MB/s", Sessfs: stat(firstMBs), Native: ptr(stat(nRead)), Target: "≥ 200 MB/s",
		Note: "after S3's stat; native: read of its source (page cache); ratio: sessfs/native speed"}
	r.Ratio = r.Sessfs.Median / r.Native.Median
	r.setTarget(r.Sessfs.Median, 200, true)
	rows = append(rows, r)

	// S5: warm cat against a native file of the same bytes.
	p := filepath.Join(d.mnt, src.longName, "transcript.md")
	nat := filepath.Join(c.work, "native-transcript.md")
	copyFile(p, nat)
	readAll(nat)
	var warm, nWarm []float64
	for range 5 {
		t0 := time.Now()
		readAll(p)
		warm = append(warm, ms(time.Since(t0)))
		t0 = time.Now()
		readAll(nat)
		nWarm = append(nWarm, ms(time.Since(t0)))
	}
	r = Row{Row: "S5 warm cat, long transcript.md", Unit: "ms", Sessfs: stat(warm), Native: ptr(stat(nWarm)), Target: "≥ 0.5× (within 2×)",
		Note: "native: a file of the same bytes, page cache; ratio: native time / sessfs time"}
	r.Ratio = r.Native.Median / r.Sessfs.Median
	r.setTarget(r.Ratio, 0.5, true)
	rows = append(rows, r)

	// S6: ls -l of every session against a folder of as many folders.
	natLs := filepath.Join(c.work, "native-ls")
	must(os.Mkdir(natLs, 0o755))
	for _, n := range src.names {
		must(os.Mkdir(filepath.Join(natLs, n), 0o755))
	}
	var ls, nLs []float64
	for range 5 {
		ls = append(ls, lsL(d.mnt))
		nLs = append(nLs, lsL(natLs))
	}
	r = Row{Row: fmt.Sprintf("S6 ls -l MOUNT, %d sessions", len(src.names)), Unit: "ms", Sessfs: stat(ls), Native: ptr(stat(nLs)), Target: "≥ 0.3×",
		Note: "as row 7a; native: a folder of as many folders; ratio: native time / sessfs time"}
	r.Ratio = r.Native.Median / r.Sessfs.Median
	r.setTarget(r.Ratio, 0.3, true)
	rows = append(rows, r)

	// S7: grep -l of a word found in a few sessions, over every session's
	// transcript.md (first reads but the long one's), against grep -rl over
	// the sources. Every transcript.md and not grep -r over the whole
	// mount: that renders each session in every format and every turn
	// (row 8's note), over an hour at 1 GB.
	var transcripts []string
	for _, n := range src.names {
		transcripts = append(transcripts, filepath.Join(d.mnt, n, "transcript.md"))
	}
	t0 = time.Now()
	found := grepFiles(onFiles(transcripts, "grep", "-l", scaleWord))
	grepMs := ms(time.Since(t0))
	step("grep -l over every transcript.md", t0)
	var nGrep []float64
	var nFound int
	for range 3 {
		t0 := time.Now()
		nFound = len(grepFiles(exec.Command("grep", "-rl", scaleWord, src.root)))
		nGrep = append(nGrep, ms(time.Since(t0)))
	}
	r = Row{Row: fmt.Sprintf("S7 grep -l, %d transcripts", len(src.names)), Unit: "ms", Sessfs: one(grepMs), Native: ptr(stat(nGrep)), Target: "≥ 0.5×",
		Note: fmt.Sprintf("%q in %d sessions (%d found; native %d); first read of each; native: grep -rl over the sources; ratio: native time / sessfs time", scaleWord, len(src.needle), len(found), nFound)}
	r.Ratio = r.Native.Median / grepMs
	r.setTarget(r.Ratio, 0.5, true)
	rows = append(rows, r)
	if len(found) != len(src.needle) {
		must(fmt.Errorf("grep -l %s over the mount found %d transcripts, the sources hold it in %d sessions", scaleWord, len(found), len(src.needle)))
	}

	// S8: the daemon's RSS after reading every file of every session
	// that renders or holds all of it, to its end.
	t0 = time.Now()
	var read int64
	for _, n := range src.names {
		for _, f := range s8Files {
			read += readAll(filepath.Join(d.mnt, n, f))
		}
	}
	readAllS := time.Since(t0).Seconds()
	step("read every session's files", t0)
	rss := procStatus(d.pid(), "VmRSS")
	hwm := procStatus(d.pid(), "VmHWM")
	cpu := cpuTime(d.pid())
	must(unmountDaemon(d))
	idx, _ := du(filepath.Join(store, "index"))
	// The bound is the issue's, for a 10 GB store, not scaled down: a
	// smaller store has less to hold. What the reads added over the
	// daemon's RSS before them, at the same rate per byte of source,
	// says how a 10 GB store would fare if nothing bounded it.
	limit := float64(rssPer10GB)
	grown := mib(rss) - mib(idleRSS)
	r = Row{Row: "S8 daemon RSS after reading all", Unit: "MiB", Sessfs: one(mib(rss)), Native: ptr(one(mib(idleRSS))),
		Target: "< " + fmtNum(limit) + " MiB",
		Note: fmt.Sprintf("VmRSS of the sessfs mount process (no GC forced; peak VmHWM %.0f MiB) after reading %s of all %d sessions, %.0f MB, in %.1fs; "+
			"native: its RSS after S3–S5 alone; target: the issue's %d MiB after reading a 10 GB store; ratio: sessfs/native. "+
			"The reads added %.0f MiB, %.1f MiB per GB of source: unbounded, that rate would reach %.0f MiB at 10 GB. "+
			"The daemon used %.0fs of CPU in all, its search index build in the background included (index/ %.0f MB at unmount)",
			mib(hwm), strings.Join(s8Files, ", "), len(src.names), mb(read), readAllS, rssPer10GB, grown, grown/(float64(src.bytes)/1e9),
			mib(idleRSS)+grown*10e9/float64(src.bytes), cpu.Seconds(), mb(idx))}
	r.Ratio = float64(rss) / float64(idleRSS)
	r.setTarget(mib(rss), limit, false)
	rows = append(rows, r)
	return rows, nil
}

// cpuTime is the user and system CPU time of process pid so far
// (/proc/PID/stat, fields 14 and 15, in clock ticks of 1/100 s: Linux's
// USER_HZ on every architecture Go runs on).
func cpuTime(pid int) time.Duration {
	data := must1(os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)))
	// Fields count from after the command's name, which may hold spaces.
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

func mb(n int64) float64 { return float64(n) / 1e6 }

func mib(n int64) float64 { return float64(n) / (1 << 20) }

func one(v float64) Stat { return Stat{Median: v, Min: v, Max: v} }

func ptr(s Stat) *Stat { return &s }

// onFiles is the command name args… run on files, in as many runs as
// the system's limit on arguments needs (xargs): 28,000 sessions at 10G
// are past it.
func onFiles(files []string, name string, args ...string) *exec.Cmd {
	cmd := exec.Command("xargs", append([]string{"-0", "--", name}, args...)...)
	cmd.Stdin = strings.NewReader(strings.Join(files, "\x00"))
	return cmd
}

// timeCmd times a command, its output discarded; it must succeed.
func timeCmd(cmd *exec.Cmd) time.Duration {
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		must(fmt.Errorf("%s: %v %s", cmd, err, strings.TrimSpace(stderr.String())))
	}
	return time.Since(t0)
}

// grepFiles runs a grep that lists files, and returns them; none found
// is no error (grep's 1, or xargs' 123 for a run of it that found none),
// but anything grep says on stderr is.
func grepFiles(cmd *exec.Cmd) []string {
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		ee, ok := err.(*exec.ExitError)
		if !ok || (ee.ExitCode() != 1 && ee.ExitCode() != 123) || stderr.Len() > 0 {
			must(fmt.Errorf("%s: %v %s", cmd, err, strings.TrimSpace(stderr.String())))
		}
	}
	return strings.Fields(out.String())
}

// importAll is `sessfs --store store import root`, as a user runs it; it
// must succeed, and returns the names it printed.
func importAll(bin, store, root string) []string {
	cmd := exec.Command(bin, "--store", store, "import", root)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		must(fmt.Errorf("sessfs import: %v\n%s", err, tail(stderr.String(), 2000)))
	}
	return strings.Fields(out.String())
}

// checkImport fails the run loudly unless every source became the session
// its slug names, and a short session and one holding scaleWord export
// byte for byte as their sources (export --format original).
func checkImport(bin, store string, src *scaleSources, names []string) {
	if len(names) != len(src.files) {
		must(fmt.Errorf("sessfs import printed %d sessions for %d sources", len(names), len(src.files)))
	}
	got := map[string]bool{}
	for _, n := range names {
		got[n] = true
	}
	for _, n := range src.names {
		if !got[n] {
			must(fmt.Errorf("sessfs import made no session %s (named by its slug); it printed %v…", n, names[:min(len(names), 5)]))
		}
	}
	check := []int{1}
	for i, f := range src.files {
		if len(src.needle) > 0 && f == src.needle[0] {
			check = append(check, i)
		}
	}
	for _, i := range check {
		if i >= len(src.files) {
			continue
		}
		cmd := exec.Command(bin, "--store", store, "export", "--format", "original", src.names[i])
		var out, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &stderr
		if err := cmd.Run(); err != nil {
			must(fmt.Errorf("sessfs export --format original %s: %v %s", src.names[i], err, stderr.String()))
		}
		want := must1(os.ReadFile(src.files[i]))
		if !bytes.Equal(out.Bytes(), want) {
			must(fmt.Errorf("sessfs export --format original %s is not its source %s byte for byte (%d bytes, want %d)",
				src.names[i], src.files[i], out.Len(), len(want)))
		}
	}
}

// du is the apparent size and the disk blocks (st_blocks × 512) of every
// file under root.
func du(root string) (apparent, blocks int64) {
	filepath.Walk(root, func(_ string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		// A sealed log's bytes are counted once, at the plain log's
		// apparent size, which keeps the part punched out for its .zst:
		// apparent bytes are the store as it would be unsealed.
		if !fi.IsDir() && !strings.HasSuffix(fi.Name(), ".jsonl.zst") {
			apparent += fi.Size()
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			blocks += st.Blocks * 512
		}
		return nil
	})
	return apparent, blocks
}

func copyFile(from, to string) {
	in := must1(os.Open(from))
	defer in.Close()
	out := must1(os.Create(to))
	must1(io.Copy(out, in))
	must(out.Close())
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
