package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sessfs/sessfs/backing/pgstore/pgtest"
)

// Faults of the database under a mount: its connections cut, the server
// restarted under load, the server down while the mount serves reads.
// Whatever happens, an append the writer was told succeeded is stored
// once, one that failed failed with EIO in bounded time and the daemon
// said why, and the mount works again by itself once the database does.

// writeBound is the longest a write to append may take while the database
// is unreachable: the store bounds every call (pgstore.DefaultTimeout,
// 30 s), and here the server refuses at once, so a write that takes this
// long is a hang.
const writeBound = 10 * time.Second

// appender is a harness appending one JSON line per write(2) to an append
// file, with the same descriptor throughout, until told to stop: it
// prints each write's outcome (ok or the errno's name), how long it took
// and when it returned, a line each.
type appender struct {
	cmd  *exec.Cmd
	out  *lockedBuffer
	stop string        // the file whose existence tells it to stop
	done chan struct{} // closed when it exited, err set
	err  error
}

const appenderPy = `
import os, sys, json, time, errno
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)
stop = sys.argv[2]
i = 0
while not os.path.exists(stop):
    line = json.dumps({"role": "user", "content": "message %d" % i, "seq": i}) + "\n"
    t0 = time.monotonic()
    try:
        os.write(fd, line.encode())
        r = "ok"
    except OSError as e:
        r = errno.errorcode.get(e.errno, str(e.errno))
    print(i, r, int((time.monotonic() - t0) * 1000), time.time_ns(), flush=True)
    i += 1
    if r != "ok":
        time.sleep(0.05)  # the database is away: no need to spin
os.close(fd)
`

func startAppender(t *testing.T, appendPath string) *appender {
	t.Helper()
	a := &appender{out: &lockedBuffer{}, stop: filepath.Join(t.TempDir(), "stop"), done: make(chan struct{})}
	a.cmd = exec.Command("python3", "-c", appenderPy, appendPath, a.stop)
	a.cmd.Stdout = a.out
	stderr := &lockedBuffer{}
	a.cmd.Stderr = stderr
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		if err := a.cmd.Wait(); err != nil {
			a.err = fmt.Errorf("%v: %s", err, stderr.String())
		}
		close(a.done)
	}()
	t.Cleanup(func() {
		os.WriteFile(a.stop, nil, 0o644)
		select {
		case <-a.done:
		case <-time.After(2 * writeBound):
			a.cmd.Process.Kill()
		}
	})
	return a
}

// outcome is one write's.
type outcome struct {
	seq    int
	result string // "ok" or an errno's name
	took   time.Duration
	end    time.Time // when the write returned
}

// outcomes parses what the appender printed so far.
func (a *appender) outcomes(t *testing.T) []outcome {
	t.Helper()
	var out []outcome
	printed := a.out.String()
	printed = printed[:strings.LastIndexByte(printed, '\n')+1] // whole lines only
	for _, l := range lines(printed) {
		f := strings.Fields(l)
		if len(f) != 4 {
			t.Fatalf("appender printed %q", l)
		}
		seq, _ := strconv.Atoi(f[0])
		ms, _ := strconv.Atoi(f[2])
		ns, _ := strconv.ParseInt(f[3], 10, 64)
		out = append(out, outcome{seq, f[1], time.Duration(ms) * time.Millisecond, time.Unix(0, ns)})
	}
	return out
}

// count is how many writes so far had result r ("" for any).
func (a *appender) count(t *testing.T, r string) int {
	n := 0
	for _, o := range a.outcomes(t) {
		if r == "" || o.result == r {
			n++
		}
	}
	return n
}

// finish tells the appender to stop and waits for it.
func (a *appender) finish(t *testing.T) []outcome {
	t.Helper()
	if err := os.WriteFile(a.stop, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case <-a.done:
		if a.err != nil {
			t.Fatalf("appender: %v", a.err)
		}
	case <-time.After(2 * writeBound):
		t.Fatalf("appender still writing %v after it was told to stop: a write hangs", 2*writeBound)
	}
	return a.outcomes(t)
}

// checkOutcomes checks what a writer was told against the messages a
// mount reads: each acknowledged write stored exactly once, in order;
// each failed one failed with EIO, in bounded time, and is stored at most
// once (a commit whose answer the connection lost is stored and reported
// failed: the writer cannot tell, and a retry with an id is the cure).
// It returns how many failed.
func checkOutcomes(t *testing.T, outs []outcome, stored []msg) (failed int) {
	t.Helper()
	count := map[int]int{}
	prev := -1
	for i, m := range stored {
		s, ok := m["seq"].(float64)
		if !ok {
			continue // not the appender's
		}
		count[int(s)]++
		if int(s) <= prev {
			t.Errorf("stored message %d: seq %v after %d: out of order or doubled", i, s, prev)
		}
		prev = int(s)
	}
	var slowest time.Duration
	storedAnyway := 0
	for _, o := range outs {
		switch {
		case o.result == "ok" && count[o.seq] != 1:
			t.Errorf("write %d succeeded, and its message is stored %d times", o.seq, count[o.seq])
		case o.result == "ok":
		case o.result != "EIO":
			t.Errorf("write %d failed with %s, want EIO (the database, not the message)", o.seq, o.result)
		case count[o.seq] > 1:
			t.Errorf("write %d failed, and its message is stored %d times", o.seq, count[o.seq])
		default:
			failed++
			storedAnyway += count[o.seq]
			slowest = max(slowest, o.took)
		}
		if o.took > writeBound {
			t.Errorf("write %d (%s) took %v, over %v", o.seq, o.result, o.took, writeBound)
		}
	}
	t.Logf("%d writes: %d failed with EIO (the slowest failure took %v), %d of those stored all the same",
		len(outs), failed, slowest, storedAnyway)
	return failed
}

// wantEIOLogged checks the daemon said why it answered EIO, once or more.
func wantEIOLogged(t *testing.T, p *mountProc) {
	t.Helper()
	var why []string
	for _, l := range lines(p.stderr.String()) {
		if strings.Contains(l, "I/O error") {
			why = append(why, l)
		}
	}
	if len(why) == 0 {
		t.Errorf("writes failed with EIO and the daemon logged no reason; its log:\n%s", p.stderr.String())
		return
	}
	t.Logf("the daemon logged %d I/O errors, the first: %s", len(why), why[0])
}

// terminator cuts every connection to the database but its own with
// pg_terminate_backend, as an administrator or a failover does, every
// period until stopped; it returns how many it cut.
func terminator(t *testing.T, db string, period time.Duration) (stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan int, 1)
	var kills int
	stop = func() int {
		if cancel != nil {
			cancel()
			kills = <-done
			conn.Close(context.Background())
			cancel = nil
		}
		return kills
	}
	t.Cleanup(func() { stop() })
	go func() {
		kills := 0
		defer func() { done <- kills }()
		for ctx.Err() == nil {
			var k int
			if err := conn.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
				WHERE datname = current_database() AND pid <> pg_backend_pid()`).Scan(&k); err != nil {
				if ctx.Err() == nil {
					t.Errorf("pg_terminate_backend: %v", err)
				}
				return
			}
			kills += k
			select {
			case <-ctx.Done():
			case <-time.After(period):
			}
		}
	}()
	return stop
}

// The database cuts the mounts' connections again and again while a
// harness appends through one mount: every write it was told succeeded is
// stored once, the others failed with EIO (logged), and once the cuts
// stop both mounts work again by themselves: appends, and the other
// machine's change feed.
func TestPGTerminateDuringAppends(t *testing.T) {
	db := pgDatabase(t)
	cli(t, db, "new", "s")
	a := startMountProc(t, db, mountDir(t))
	b := startMountProc(t, db, mountDir(t))
	tail := tailF(t, filepath.Join(b.Dir, "s", "messages.jsonl"))

	w := startAppender(t, filepath.Join(a.Dir, "s", "append"))
	eventually(t, crossDeadline, "the first appends", func() (bool, string) {
		return w.count(t, "ok") >= 20, w.out.String()
	})
	stop := terminator(t, db, 20*time.Millisecond)
	before, cutting := w.count(t, ""), time.Now()
	eventually(t, time.Minute, "300 writes and 2 s while connections are cut", func() (bool, string) {
		return w.count(t, "") >= before+300 && time.Since(cutting) > 2*time.Second, fmt.Sprintf("%d writes", w.count(t, ""))
	})
	kills := stop()
	t.Logf("%d connections cut", kills)
	// Recovered by itself: writes succeed again on the same descriptor.
	after := w.count(t, "")
	eventually(t, crossDeadline, "20 writes in a row succeeding after the cuts", func() (bool, string) {
		outs := w.outcomes(t)[after:]
		run := 0
		for _, o := range outs {
			if run++; o.result != "ok" {
				run = 0
			}
		}
		return run >= 20, fmt.Sprintf("%d writes since", len(outs))
	})
	outs := w.finish(t)

	stored := messagesOf(t, filepath.Join(a.Dir, "s"))
	if checkOutcomes(t, outs, stored) > 0 {
		wantEIOLogged(t, a)
	}
	// The other machine's feed recovered too: it follows a new append.
	sh(t, `echo '{"role":"user","content":"after the cuts"}' >> "$1/s/append"`, a.Dir)
	eventually(t, crossDeadline, "tail -f on b following an append after the cuts", func() (bool, string) {
		return strings.Contains(tail.String(), "after the cuts"), fmt.Sprintf("%d bytes", len(tail.String()))
	})
	want := cat(t, filepath.Join(a.Dir, "s", "messages.jsonl"))
	eventually(t, crossDeadline, "messages.jsonl the same on both machines", func() (bool, string) {
		got := cat(t, filepath.Join(b.Dir, "s", "messages.jsonl"))
		return got == want, fmt.Sprintf("a %d bytes, b %d", len(want), len(got))
	})
	if got := tail.String(); got != want {
		i := 0
		for i < len(got) && got[i] == want[i] {
			i++
		}
		from := strings.LastIndexByte(got[:i], '\n') + 1
		t.Errorf("tail -f on b printed %d bytes, not messages.jsonl as cat reads it (%d bytes); from byte %d, tail:\n%.400s\ncat:\n%.400s", len(got), len(want), from, got[from:], want[from:])
	}
}

// The server stops and starts again while a harness appends through a
// mount: writes during the outage fail with EIO within bounded time,
// never hang, never report a success they did not get; after the restart
// the same descriptor appends again, no remount, and the other machine's
// tail -f follows.
func TestPGRestartUnderLoad(t *testing.T) {
	requireFUSE(t)
	needCLI(t)
	srv := pgtest.Own(t)
	db := srv.URL()
	cli(t, db, "new", "s")
	a := startMountProc(t, db, mountDir(t))
	b := startMountProc(t, db, mountDir(t))
	tail := tailF(t, filepath.Join(b.Dir, "s", "messages.jsonl"))

	w := startAppender(t, filepath.Join(a.Dir, "s", "append"))
	eventually(t, crossDeadline, "the first appends", func() (bool, string) {
		return w.count(t, "ok") >= 50, w.out.String()
	})
	srv.Stop(t)
	down := time.Now()
	eventually(t, 2*writeBound, "20 writes failing while the server is down", func() (bool, string) {
		return w.count(t, "EIO") >= 20, fmt.Sprintf("%d writes: %s", w.count(t, ""), trunc(w.out.String()))
	})
	up := time.Now()
	srv.Start(t)
	t.Logf("the server was down %v", time.Since(down).Round(time.Millisecond))
	after, started := w.count(t, ""), time.Now()
	eventually(t, crossDeadline, "20 writes in a row succeeding after the restart", func() (bool, string) {
		outs := w.outcomes(t)[after:]
		run := 0
		for _, o := range outs {
			if run++; o.result != "ok" {
				run = 0
			}
		}
		return run >= 20, fmt.Sprintf("%d writes since", len(outs))
	})
	t.Logf("writes succeed again %v after the restart", time.Since(started).Round(time.Millisecond))
	outs := w.finish(t)
	// No write returned success while the server was down: between the
	// return of pg_ctl stop and the start of pg_ctl start (one clock,
	// the machine's).
	for _, o := range outs {
		if o.result == "ok" && o.end.After(down) && o.end.Before(up) {
			t.Errorf("write %d succeeded while the server was down (%v after it stopped)", o.seq, o.end.Sub(down))
		}
	}

	stored := messagesOf(t, filepath.Join(a.Dir, "s"))
	if checkOutcomes(t, outs, stored) == 0 {
		t.Errorf("no write failed while the server was down")
	}
	wantEIOLogged(t, a)
	want := cat(t, filepath.Join(a.Dir, "s", "messages.jsonl"))
	eventually(t, crossDeadline, "tail -f on b following the appends after the restart", func() (bool, string) {
		return tail.String() == want, fmt.Sprintf("tail %d bytes, cat on a %d; b's log:\n%s", len(tail.String()), len(want), b.stderr.String())
	})
}

// The server is down while a mount serves reads (a restart, a failover):
// reads wait for it, up to the store's timeout (30 s), and then read what
// they would have read; a tail -f keeps following, and after the restart
// the mount shows what others wrote, with no remount. (Past the timeout a
// read fails with EIO: see README, "When the database is away".)
func TestPGReadsWhileDown(t *testing.T) {
	requireFUSE(t)
	needCLI(t)
	srv := pgtest.Own(t)
	db := srv.URL()
	cli(t, db, "new", "s")
	if r := cliResult(t, db, strings.Join(conversation, "\n")+"\n", "append", "s", "-"); r.code != 0 {
		t.Fatal(r)
	}
	a := startMountProc(t, db, mountDir(t))
	dir := filepath.Join(a.Dir, "s")
	tail := tailF(t, filepath.Join(dir, "messages.jsonl"))
	reads := map[string][]string{ // what each read prints, before the outage
		"cat transcript.md":  {"cat", filepath.Join(dir, "transcript.md")},
		"cat messages.jsonl": {"cat", filepath.Join(dir, "messages.jsonl")},
		"ls the mount":       {"ls", a.Dir},
		"ls turns":           {"ls", filepath.Join(dir, "turns")},
		"cat turns/2":        {"cat", filepath.Join(dir, "turns", "2", "transcript.md")},
	}
	before := map[string]string{}
	for what, argv := range reads {
		before[what] = run(t, argv[0], argv[1:]...)
	}
	eventually(t, crossDeadline, "tail -f printing messages.jsonl", func() (bool, string) {
		return tail.String() == before["cat messages.jsonl"], tail.String()
	})

	srv.Stop(t)
	down := time.Now()
	type answer struct {
		what string
		r    result
		took time.Duration
	}
	done := make(chan answer, len(reads))
	for what, argv := range reads {
		go func() {
			start := time.Now()
			r := runCmd(t, "", argv[0], argv[1:]...)
			done <- answer{what, r, time.Since(start)}
		}()
	}
	// A command does not wait: it fails at once and says why.
	cliStart := time.Now()
	if r := cliResult(t, db, "", "ls"); r.code == 0 || !strings.Contains(r.stderr, "connect") {
		t.Errorf("sessfs ls with the server down: %v; want a failure naming the connection", r)
	} else {
		t.Logf("sessfs ls with the server down failed in %v: %s", time.Since(cliStart).Round(time.Millisecond), strings.TrimSpace(r.stderr))
	}
	// The outage the reads wait out: a second, long enough for every
	// cached name and size of the kernel's to have expired, so that each
	// read asks the mount, which asks the database.
	time.Sleep(time.Second - time.Since(down))
	srv.Start(t)
	t.Logf("the server was down %v", time.Since(down).Round(time.Millisecond))
	var waited time.Duration
	for range reads {
		x := <-done
		waited = max(waited, x.took)
		switch {
		case x.r.code != 0:
			t.Errorf("%s while the server was down: %v", x.what, x.r)
		case x.r.stdout != before[x.what]:
			t.Errorf("%s while the server was down read %d bytes, not the %d it read before", x.what, len(x.r.stdout), len(before[x.what]))
		default:
			t.Logf("%s while the server was down: waited %v, then read as before", x.what, x.took.Round(time.Millisecond))
		}
	}
	if waited < 100*time.Millisecond {
		t.Errorf("no read waited for the server (the longest took %v): none met the outage this test is about", waited)
	}
	// Caught up: another machine's append after the restart shows in
	// the tail -f that ran through it.
	cli(t, db, "append", "s", "written after the restart")
	start := time.Now()
	d := until(t, start, "tail -f on the mount following an append after the restart", func() (bool, string) {
		return strings.Contains(tail.String(), "written after the restart"), fmt.Sprintf("%d bytes; the daemon's log:\n%s", len(tail.String()), a.stderr.String())
	})
	t.Logf("the append after the restart reached tail -f in %v", d.Round(time.Millisecond))
	if got, want := tail.String(), cat(t, filepath.Join(dir, "messages.jsonl")); got != want {
		t.Errorf("tail -f printed %d bytes, not messages.jsonl as cat reads it (%d bytes)", len(got), len(want))
	}
}
