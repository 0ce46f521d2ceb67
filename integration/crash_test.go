package integration

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sessfs/sessfs/integration/mounttest"
)

// crashRounds is how many random kill points a crash test tries: a few in
// make test, 50 in the long mode (SESSFS_TEST_LONG=1, make test-long).
func crashRounds() int {
	if os.Getenv("SESSFS_TEST_LONG") == "1" {
		return 50
	}
	return 3
}

// writerScript appends JSON messages to A[0] one os.write each, and prints
// each seq once its write has returned success: the acknowledged ones.
// It stops at the first error (the daemon is gone).
const writerScript = `
import os, sys, json
path, writer = sys.argv[1], int(sys.argv[2])
fd = os.open(path, os.O_WRONLY | os.O_APPEND)
seq = 0
while True:
    line = json.dumps({"role": "user", "content": "w%d-%d" % (writer, seq), "writer": writer, "seq": seq}) + "\n"
    try:
        os.write(fd, line.encode())
    except OSError:
        sys.exit(0)
    print(seq, flush=True)
    seq += 1
`

// TestCrashDaemonKilled kills the mount daemon with SIGKILL while four
// processes append through it. After a remount on the same (dead) mount
// point, every message whose write(2) returned success is there exactly
// once, no message is there twice, each writer's order is kept, and fsck
// finds nothing to repair.
func TestCrashDaemonKilled(t *testing.T) {
	requireFUSE(t)
	needCLI(t)
	store := filepath.Join(t.TempDir(), "store")
	cli(t, store, "new", "s")
	mnt := mountDir(t)
	acked := map[[2]int]bool{}
	for round := range crashRounds() {
		killDaemonWhileWriting(t, store, mnt, round, writerScript, func(writer int, line string) {
			seq, _ := strconv.Atoi(line)
			acked[[2]int{writer, seq}] = true
		})
	}
	// Remount on the dead mount point: sessfs mount must clear it.
	startDaemon(t, store, mnt)
	seen := map[[2]int]int{}
	last := map[int]int{}
	for i, m := range parseJSONL(t, cat(t, filepath.Join(mnt, "s", "messages.jsonl"))) {
		w, s := int(m["writer"].(float64)), int(m["seq"].(float64))
		k := [2]int{w, s}
		if seen[k]++; seen[k] > 1 {
			t.Errorf("message %d: writer %d seq %d is there twice", i, w, s)
		}
		if prev, ok := last[w]; ok && s <= prev {
			t.Errorf("message %d: writer %d seq %d after seq %d", i, w, s, prev)
		}
		last[w] = s
	}
	lost := 0
	for k := range acked {
		if seen[k] == 0 {
			lost++
			if lost <= 5 {
				t.Errorf("writer %d seq %d: write(2) succeeded, message lost", k[0], k[1])
			}
		}
	}
	if lost > 0 || t.Failed() {
		t.Fatalf("%d of %d acknowledged messages lost", lost, len(acked))
	}
	t.Logf("%d kill points, %d acknowledged messages, all present once", crashRounds(), len(acked))
	mounttest.ForceUnmount(mnt)
	if r := cliResult(t, store, "", "fsck"); r.code != 0 {
		t.Errorf("fsck after the crashes: %v", r)
	}
}

// TestCrashCLIKilled kills `sessfs append` processes at random moments:
// every append that exited 0 is in the session whole, exactly once. Of an
// append killed mid-write a prefix of its messages may be there, each
// whole and once (SIGKILL can cut a large write(2) between pages; those
// messages were never acknowledged), and fsck --repair moves a torn last
// line to quarantine, after which fsck passes.
func TestCrashCLIKilled(t *testing.T) {
	needCLI(t)
	store := filepath.Join(t.TempDir(), "store")
	cli(t, store, "new", "s")
	done := map[string]bool{}
	for round := range crashRounds() * 10 {
		var cmds []*exec.Cmd
		for w := range 4 {
			var in strings.Builder
			tag := fmt.Sprintf("r%d-w%d", round, w)
			for i := range 200 {
				fmt.Fprintf(&in, `{"role":"user","content":"%s-%d %s"}`+"\n", tag, i, strings.Repeat("x", 2000))
			}
			cmd := exec.Command(sessfsBin, "append", "--store", store, "s", "-")
			cmd.Stdin = strings.NewReader(in.String())
			cmd.Env = append(os.Environ(), "tag="+tag)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds = append(cmds, cmd)
		}
		time.Sleep(time.Duration(rand.IntN(30)) * time.Millisecond) // a random kill point, not synchronisation
		for _, c := range cmds[:2] {
			c.Process.Signal(syscall.SIGKILL)
		}
		for w, c := range cmds {
			if c.Wait() == nil {
				done[fmt.Sprintf("r%d-w%d", round, w)] = true
			}
		}
	}
	r := cliResult(t, store, "", "show", "--format", "jsonl", "s")
	if r.code != 0 {
		t.Fatal(r)
	}
	count := map[string]int{}
	for _, line := range lines(r.stdout) {
		var m struct{ Content string }
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("a message is not JSON: %v", err)
		}
		id, _, _ := strings.Cut(m.Content, " ")
		i := strings.LastIndexByte(id, '-')
		tag, n := id[:i], id[i+1:]
		if want := strconv.Itoa(count[tag]); n != want {
			t.Errorf("append %s: message %s where %s was due (not a prefix, or twice)", tag, n, want)
		}
		count[tag]++
	}
	for tag := range done {
		if count[tag] != 200 {
			t.Errorf("append %s exited 0 but %d of its 200 messages are there", tag, count[tag])
		}
	}
	if r := cliResult(t, store, "", "fsck", "--repair"); r.code != 0 {
		t.Errorf("fsck --repair: %v", r)
	}
	if r := cliResult(t, store, "", "fsck"); r.code != 0 {
		t.Errorf("fsck after repair: %v", r)
	}
}

// killDaemonWhileWriting is one round of a daemon crash: it starts a
// daemon on mnt, runs four python3 writers of script (its arguments: the
// session s's append file and the writer's number, round*10 + 0…3), kills
// the daemon with SIGKILL once each writer has printed a random 1 to 40
// lines, and returns once every writer has stopped. Each line a writer
// prints goes to seen, one line at a time.
func killDaemonWhileWriting(t *testing.T, store, mnt string, round int, script string, seen func(writer int, line string)) {
	t.Helper()
	daemon := startDaemon(t, store, mnt)
	var mu sync.Mutex // the writers print at once
	var wg sync.WaitGroup
	enough := make(chan struct{}, 4)
	want := 1 + rand.IntN(40) // lines per writer before the kill
	for w := range 4 {
		writer := round*10 + w
		cmd := exec.Command("python3", "-c", script, filepath.Join(mnt, "s", "append"), strconv.Itoa(writer))
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := bufio.NewScanner(out)
			n := 0
			for sc.Scan() {
				mu.Lock()
				seen(writer, sc.Text())
				mu.Unlock()
				if n++; n == want {
					enough <- struct{}{}
				}
			}
			cmd.Wait()
		}()
	}
	for range 4 {
		select {
		case <-enough:
		case <-time.After(20 * time.Second):
			t.Fatalf("round %d: writers did not reach %d writes each", round, want)
		}
	}
	daemon.Process.Kill()
	daemon.Wait()
	wg.Wait() // every writer saw its write fail and stopped
}

// startDaemon runs `sessfs mount` in the background (not to be stopped
// cleanly: the caller may kill it) and waits for the mount.
func startDaemon(t *testing.T, store, mnt string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(sessfsBin, "mount", "--store", store, mnt)
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Wait()
		}
		mounttest.ForceUnmount(mnt)
	})
	eventually(t, 10*time.Second, "sessfs mount to mount "+mnt, func() (bool, string) {
		return mounttest.IsMountPoint(mnt) && liveMount(mnt), stderr.String()
	})
	return cmd
}

// liveMount reports whether a daemon answers at mnt. statfs is never
// answered from the kernel's cache; a stat of a dead mount can be, for as
// long as the attributes it cached stay valid.
func liveMount(mnt string) bool {
	var s syscall.Statfs_t
	return syscall.Statfs(mnt, &s) == nil
}
