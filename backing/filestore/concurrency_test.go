package filestore_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gofrs/flock"
	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

// newStore opens a store in a fresh folder and creates session name in it.
func newStore(t *testing.T, name string) (*filestore.Store, backing.Session) {
	t.Helper()
	st, err := filestore.Open(filepath.Join(t.TempDir(), "store"), filestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := st.Create(name, backing.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	return st, s
}

// TestSubprocessAppenders has four processes append to one session at once.
// Each process has its own Store, so nothing in memory serialises them: only
// the session's flock does. What we want back is every message exactly once,
// each writer's messages in the order it wrote them, and no line made of two
// messages' bytes.
func TestSubprocessAppenders(t *testing.T) {
	const writers, perWriter = 4, 200
	st, _ := newStore(t, "shared")

	var as []appender
	for w := range writers {
		as = append(as, startAppender(t,
			envAppender+"=1",
			envStore+"="+st.Root(),
			envSession+"=shared",
			envWriter+"="+strconv.Itoa(w),
			envCount+"="+strconv.Itoa(perWriter),
		))
	}
	// Readers take no lock: this process reads the session all along, and
	// must only ever see whole messages, never fewer than it saw before.
	s, err := st.Session("shared")
	if err != nil {
		t.Fatal(err)
	}
	stopReading := readWhileWriting(t, s, writers*perWriter)
	for _, a := range as {
		a.gate.Close()
	}
	writersFailed := false
	for w, a := range as {
		if err := a.cmd.Wait(); err != nil {
			t.Errorf("writer %d: %v: %s", w, err, a.stderr)
			writersFailed = true
		}
	}
	stopReading()
	if writersFailed {
		t.FailNow()
	}

	checkAppenderLog(t, st.Root(), "shared", writers, perWriter)
}

// TestGoroutineGroupCommit has 16 goroutines of one process append to one
// session through the same handle, so that appends queue up behind each
// other and are written by group commits. Run with -race, it also checks the
// queue's locking.
func TestGoroutineGroupCommit(t *testing.T) {
	const writers, perWriter = 16, 100
	st, s := newStore(t, "shared")

	start := make(chan struct{}) // released at once so the goroutines overlap
	errs := make(chan error, writers)
	// A reader shares the session handle, and so the offset index the
	// appends extend: -race checks that sharing.
	stopReading := readWhileWriting(t, s, writers*perWriter)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			<-start
			for seq := range perWriter {
				if err := s.AppendID("", [][]byte{appenderMessage(w, seq)}); err != nil {
					errs <- fmt.Errorf("writer %d, message %d: %w", w, seq, err)
					return
				}
			}
		})
	}
	close(start)
	wg.Wait()
	stopReading()
	close(errs)
	if len(errs) > 0 {
		for err := range errs {
			t.Error(err)
		}
		t.FailNow()
	}

	checkAppenderLog(t, st.Root(), "shared", writers, perWriter)
}

// readWhileWriting reads the default branch of s in a goroutine until the
// returned function is called, the way tail -f does: each round reads the
// messages added since the last. It checks that the count never goes down
// and that each new message is a whole JSON object: appends are all or
// nothing and readers skip an unfinished last line, so a reader taking no
// lock must still never see half a message. stop fails the test unless
// some read overlapped the writers (saw more than none and fewer than
// total of the messages they write): else it proved nothing.
func readWhileWriting(t *testing.T, s backing.Session, total int) (stop func()) {
	t.Helper()
	done := make(chan struct{})
	finished := make(chan struct{})
	overlapped := 0 // reads that saw some of the writers' messages, not all
	go func() {
		defer close(finished)
		seen, reads := 0, 0
		for {
			select {
			case <-done:
				t.Logf("%d concurrent reads, %d while writing; the last saw %d messages", reads, overlapped, seen)
				return
			default:
			}
			v, err := s.ViewID("")
			if err != nil {
				t.Errorf("concurrent read: %v", err)
				return
			}
			reads++
			if v.Len() < seen {
				t.Errorf("concurrent read %d saw %d messages after %d", reads, v.Len(), seen)
				return
			}
			msgs, err := v.Read(seen, v.Len())
			if err != nil {
				t.Errorf("concurrent read: %v", err)
				return
			}
			for _, m := range msgs {
				if !json.Valid(m.Raw) {
					t.Errorf("concurrent read %d: message %d is not whole: %q", reads, m.Index, m.Raw)
					return
				}
			}
			seen = v.Len()
			if seen > 0 && seen < total {
				overlapped++
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		if overlapped == 0 && !t.Failed() {
			t.Errorf("no read overlapped the writers: the reads proved nothing")
		}
	}
}

// checkAppenderLog checks what writers × perWriter appenders left in session
// name of the store at root, reading it through a fresh Store so that only
// what is on disk counts (no index this process built while appending).
func checkAppenderLog(t *testing.T, root, name string, writers, perWriter int) {
	t.Helper()
	total := writers * perWriter
	st, err := filestore.Open(root, filestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := st.Session(name)
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.ViewID("")
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := v.Read(0, v.Len())
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != total {
		t.Errorf("read %d messages, want %d", len(msgs), total)
	}

	// Every message must be one whole JSON object: bytes of two appends
	// glued or interleaved would not parse, or would carry the wrong content.
	seen := map[[2]int]int{} // (writer, seq) -> times seen
	last := make([]int, writers)
	for i := range last {
		last[i] = -1
	}
	for i, m := range msgs {
		var x struct {
			Role    string `json:"role"`
			Content string `json:"content"`
			Writer  *int   `json:"writer"`
			Seq     *int   `json:"seq"`
		}
		if err := json.Unmarshal(m.Raw, &x); err != nil {
			t.Errorf("message %d is not one JSON object: %v: %q", i, err, m.Raw)
			continue
		}
		if x.Writer == nil || x.Seq == nil || *x.Writer < 0 || *x.Writer >= writers || *x.Seq < 0 || *x.Seq >= perWriter {
			t.Errorf("message %d has no valid writer and seq: %s", i, m.Raw)
			continue
		}
		w, seq := *x.Writer, *x.Seq
		if want := fmt.Sprintf("w%d-%d", w, seq); x.Content != want || x.Role != "user" {
			t.Errorf("message %d: role %q content %q, want user %q: %s", i, x.Role, x.Content, want, m.Raw)
		}
		seen[[2]int{w, seq}]++
		// One writer appends in sequence and waits for each Append, so
		// the log must keep its order.
		if seq <= last[w] {
			t.Errorf("message %d: writer %d seq %d comes after seq %d", i, w, seq, last[w])
		}
		last[w] = seq
	}
	for w := range writers {
		for seq := range perWriter {
			if n := seen[[2]int{w, seq}]; n != 1 {
				t.Errorf("writer %d seq %d stored %d times, want once", w, seq, n)
			}
		}
	}

	// The log file itself: only the default branch's log, exactly one line
	// per message, every line finished by its newline (no torn tail).
	logs, err := filepath.Glob(filepath.Join(s.(*filestore.Session).Dir(), "logs", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != 1 {
		t.Fatalf("logs %v, want exactly one", logs)
	}
	data, err := os.ReadFile(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(data, []byte("\n")); n != total {
		t.Errorf("log has %d newlines, want %d", n, total)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		t.Errorf("log does not end with a newline: torn last line %q", data[bytes.LastIndexByte(data, '\n')+1:])
	}
	for i, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(line) == 0 {
			continue // after the final newline
		}
		if !json.Valid(bytes.TrimSuffix(line, []byte("\n"))) {
			t.Errorf("log line %d is not valid JSON: %q", i+1, line)
		}
	}

	rep, err := st.Fsck(false)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Problems {
		t.Errorf("fsck: %s: %s", p.Path, p.What)
	}
}

// TestStaleLockDoesNotBlock kills a process while it holds a session's lock
// and checks that the next append does not wait for it: flock locks die with
// the process, unlike lock files whose existence is the lock.
func TestStaleLockDoesNotBlock(t *testing.T) {
	_, s := newStore(t, "stale")
	lockPath := filepath.Join(s.(*filestore.Session).Dir(), "lock")

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envLocker+"="+lockPath)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	t.Cleanup(func() {
		if !killed {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})

	// The child prints its line only once it holds the lock.
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != lockedLine+"\n" {
		t.Fatalf("lock holder said %q, %v; stderr: %s", line, err, stderr.String())
	}
	// Make sure the test tests something: the lock really is held now.
	probe := flock.New(lockPath)
	if ok, err := probe.TryLock(); err != nil || ok {
		probe.Unlock()
		t.Fatalf("lock file is not held by the child (TryLock = %v, %v)", ok, err)
	}
	probe.Close()

	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no chance to unlock
		t.Fatal(err)
	}
	err = cmd.Wait()
	killed = true
	if err == nil {
		t.Fatalf("lock holder exited cleanly; want it killed")
	}

	done := make(chan error, 1)
	go func() {
		done <- s.AppendID("", [][]byte{[]byte(`{"role":"user","content":"after the crash"}`)})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("append still blocked 5 s after the lock holder was killed")
	}
	v, err := s.ViewID("")
	if err != nil {
		t.Fatal(err)
	}
	if v.Len() != 1 {
		t.Errorf("branch has %d messages after the append, want 1", v.Len())
	}
}

// appender is this test binary run as an appending child (childAppend).
// It waits for EOF on stdin (gate) before its first append: closing the
// gates once all children run starts them together.
type appender struct {
	cmd    *exec.Cmd
	stderr *bytes.Buffer
	gate   io.Closer
}

// startAppender starts an appender with env added to this process's.
func startAppender(t *testing.T, env ...string) appender {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env...)
	gate, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	a := appender{cmd: cmd, stderr: &bytes.Buffer{}, gate: gate}
	cmd.Stderr = a.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() }) // after a Fatal
	return a
}
