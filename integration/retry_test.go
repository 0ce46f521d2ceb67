package integration

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sessfs/sessfs/integration/mounttest"
)

// A `sessfs append` of messages with ids of their own, killed at a random
// moment (it may have stored a prefix of them, never acknowledged), then
// run again with the same input: every message is there exactly once, in
// order. Before, the retry stored the prefix a second time.
func TestRetryAfterKilledCLIAppend(t *testing.T) {
	needCLI(t)
	store := filepath.Join(t.TempDir(), "store")
	cli(t, store, "new", "s")
	rounds := crashRounds() * 3
	for round := range rounds {
		var in strings.Builder
		for i := range 200 {
			fmt.Fprintf(&in, `{"id":"r%d-%d","role":"user","content":"r%d-%d %s"}`+"\n", round, i, round, i, strings.Repeat("x", 2000))
		}
		cmd := exec.Command(sessfsBin, "append", "--store", store, "s", "-")
		cmd.Stdin = strings.NewReader(in.String())
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rand.IntN(30)) * time.Millisecond) // a random kill point, not synchronisation
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if r := cliResult(t, store, in.String(), "append", "s", "-"); r.code != 0 {
			t.Fatalf("the retry: %v", r)
		}
	}
	r := cliResult(t, store, "", "show", "--format", "jsonl", "s")
	if r.code != 0 {
		t.Fatal(r)
	}
	var got, want []string
	for _, m := range parseJSONL(t, r.stdout) {
		got = append(got, m["id"].(string))
	}
	for round := range rounds {
		for i := range 200 {
			want = append(want, fmt.Sprintf("r%d-%d", round, i))
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("%d messages after %d killed appends and their retries, want %d, each once and in order", len(got), rounds, len(want))
	}
}

// retryWriterScript appends messages with ids through the mount, one
// os.write each, and prints each seq once its write returned success. At
// the first error (the daemon is gone) it prints "failed SEQ" and stops:
// that write may or may not have been stored.
const retryWriterScript = `
import os, sys, json
path, writer = sys.argv[1], int(sys.argv[2])
fd = os.open(path, os.O_WRONLY | os.O_APPEND)
seq = 0
while True:
    line = json.dumps({"id": "w%d-%d" % (writer, seq), "role": "user", "content": "w%d-%d" % (writer, seq)}) + "\n"
    try:
        os.write(fd, line.encode())
    except OSError:
        print("failed", seq, flush=True)
        sys.exit(0)
    print(seq, flush=True)
    seq += 1
`

// The daemon is killed with SIGKILL while four writers append messages
// with ids; a write that failed (ENOTCONN) may have been stored all the
// same. After a remount each writer sends its failed message again: every
// message is then there exactly once.
func TestRetryAfterDaemonKilled(t *testing.T) {
	requireFUSE(t)
	needCLI(t)
	store := filepath.Join(t.TempDir(), "store")
	cli(t, store, "new", "s")
	mnt := mountDir(t)
	sent := map[string]bool{} // every message a writer sent, acknowledged or not
	var failed []string       // the lines to send again
	for round := range crashRounds() {
		killDaemonWhileWriting(t, store, mnt, round, retryWriterScript, func(writer int, line string) {
			if seq, ok := strings.CutPrefix(line, "failed "); ok {
				id := fmt.Sprintf("w%d-%s", writer, seq)
				sent[id] = true
				failed = append(failed, fmt.Sprintf(`{"id":%q,"role":"user","content":%q}`, id, id))
			} else {
				sent[fmt.Sprintf("w%d-%s", writer, line)] = true
			}
		})
	}
	startDaemon(t, store, mnt)
	sh(t, `printf '%s\n' "$2" >> "$1"`, filepath.Join(mnt, "s", "append"), strings.Join(failed, "\n"))
	count := map[string]int{}
	for _, m := range parseJSONL(t, cat(t, filepath.Join(mnt, "s", "messages.jsonl"))) {
		count[m["id"].(string)]++
	}
	for id := range sent {
		if count[id] != 1 {
			t.Errorf("%s is there %d times, want once", id, count[id])
		}
	}
	mounttest.ForceUnmount(mnt)
}
