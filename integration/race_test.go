package integration

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// Two mounts of one store and the CLI write the same session at once:
// 1,000 messages, none lost or doubled, each writer's order kept.
func TestTwoMountsAndCLI(t *testing.T) {
	requireFUSE(t)
	needCLI(t)
	store := filepath.Join(t.TempDir(), "store")
	cli(t, store, "new", "s")
	a := startMountProc(t, store, mountDir(t))
	b := startMountProc(t, store, mountDir(t))
	const per = 250 // 4 writers: one per mount twice, and the CLI
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	through := func(writer int, mnt string) {
		defer wg.Done()
		out, err := exec.Command("python3", "-c", `
import os, sys, json
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)
for i in range(int(sys.argv[3])):
    os.write(fd, (json.dumps({"role": "user", "content": "m", "writer": int(sys.argv[2]), "seq": i}) + "\n").encode())
`, filepath.Join(mnt, "s", "append"), strconv.Itoa(writer), strconv.Itoa(per)).CombinedOutput()
		if err != nil {
			errs <- fmt.Errorf("writer %d: %v: %s", writer, err, out)
		}
	}
	wg.Add(4)
	go through(0, a.Dir)
	go through(1, b.Dir)
	go through(2, a.Dir)
	go func() {
		defer wg.Done()
		for i := range per {
			r := cliResult(t, store, fmt.Sprintf(`{"role":"user","content":"m","writer":3,"seq":%d}`+"\n", i), "append", "s", "-")
			if r.code != 0 {
				errs <- fmt.Errorf("CLI append %d: %v", i, r)
				return
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	msgs := parseJSONL(t, cat(t, filepath.Join(b.Dir, "s", "messages.jsonl")))
	if len(msgs) != 4*per {
		t.Fatalf("%d messages, want %d", len(msgs), 4*per)
	}
	next := map[int]int{}
	for i, m := range msgs {
		w, s := int(m["writer"].(float64)), int(m["seq"].(float64))
		if s != next[w] {
			t.Fatalf("message %d: writer %d seq %d, want seq %d (lost, doubled or out of order)", i, w, s, next[w])
		}
		next[w]++
	}
	if r := cliResult(t, store, "", "fsck"); r.code != 0 {
		t.Errorf("fsck: %v", r)
	}
}

// Forks, branch renames and deletes race with appends to the same
// session: every append lands, and the store stays consistent.
func TestBranchOpsRaceAppends(t *testing.T) {
	m := newMount(t)
	newSession(t, m.Store, "s", "", jsonMsg("user", "start"))
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		sh(t, `set -e; for i in $(seq 200); do echo "message $i" >> "$1/append"; done`, m.P("s"))
	}()
	go func() {
		defer wg.Done()
		sh(t, `set -e; cd "$1/branches"; for i in $(seq 30); do mkdir f$i; mv f$i g$i; rmdir g$i; done`, m.P("s"))
	}()
	wg.Wait()
	msgs := parseJSONL(t, cat(t, m.P("s", "messages.jsonl")))
	// The shell's echo cannot report an error at close (its redirection
	// is undone with dup2, which drops it): a refused append shows here.
	if len(msgs) != 201 {
		t.Errorf("%d messages, want 201", len(msgs))
	}
	if got := ls(t, m.P("s", "branches")); len(got) != 1 || got[0] != "main" {
		t.Errorf("branches left: %q", got)
	}
	rep, err := m.Store.Fsck(false)
	if err != nil || len(rep.Problems) != 0 {
		t.Errorf("fsck: %+v %v", rep.Problems, err)
	}
}
