package integration

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing/filestore"
	"github.com/sessfs/sessfs/fsnode"
)

// mountHeld mounts a fresh store in this process, as newMount does, and
// returns its root too, whose Held says what the mount keeps in memory.
func mountHeld(t *testing.T, bo filestore.Options, opts fsnode.Options) (*mount, *fsnode.Root) {
	t.Helper()
	requireFUSE(t)
	storeDir, mnt := filepath.Join(t.TempDir(), "store"), mountDir(t)
	st, err := filestore.Open(storeDir, bo)
	if err != nil {
		t.Fatal(err)
	}
	root := fsnode.New(st, opts)
	server, err := fsnode.MountServer(mnt, root, fsnode.MountOptions(st, opts))
	if err != nil {
		t.Fatalf("mount %s: %v", mnt, err)
	}
	m := &mount{Dir: mnt, StoreDir: storeDir, Store: st, server: server}
	t.Cleanup(func() {
		if err := m.unmount(); err != nil {
			t.Errorf("unmount at the end of the test: %v", err)
		}
	})
	return m, root
}

func heap() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// Open handles buffer no more than the mount's budget together: eight
// text-mode handles each writing 16 MiB against a 64 MiB budget get ENOSPC
// at the write that would pass it (and at close, appending nothing),
// the others append their message whole, and once they are closed the
// daemon's heap is back near where it started.
func TestBufferedBytesBounded(t *testing.T) {
	const budget = 64 << 20
	m, root := mountHeld(t, filestore.Options{}, fsnode.Options{MaxBuffered: budget})
	newSession(t, m.Store, "s", "")
	start := heap()

	ctx, cancel := context.WithTimeout(context.Background(), cmdTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "python3", "-c", `
import os, sys, errno
fds = [os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND) for _ in range(8)]
failed = [None] * 8
chunk = b"x" * (1 << 20)
for _ in range(16):
    for i, fd in enumerate(fds):
        if failed[i]:
            continue
        try:
            os.write(fd, chunk)
        except OSError as e:
            failed[i] = errno.errorcode[e.errno]
print(" ".join(f or "-" for f in failed), flush=True)
sys.stdin.readline()
closed = []
for fd in fds:
    try:
        os.close(fd)
        closed.append("-")
    except OSError as e:
        closed.append(errno.errorcode[e.errno])
print(" ".join(closed), flush=True)
`, m.P("s", "append"))
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(stdout)
	written, err := out.ReadString('\n')
	if err != nil {
		t.Fatalf("python3: %v\n%s", err, stderr.String())
	}
	// The handles are open, holding what they took.
	held, grown := root.Held()["buffered"], heap()-start
	t.Logf("writes: %s; buffered %d MiB, heap +%d MiB", strings.TrimSpace(written), held>>20, grown>>20)
	if held > budget {
		t.Errorf("the open handles hold %d bytes, over the budget of %d", held, budget)
	}
	if grown > budget+16<<20 {
		t.Errorf("the heap grew by %d MiB with the handles open, over the budget of %d MiB", grown>>20, budget>>20)
	}
	io.WriteString(stdin, "close\n")
	closed, _ := out.ReadString('\n')
	if err := cmd.Wait(); err != nil {
		t.Fatalf("python3: %v\n%s", err, stderr.String())
	}
	w, c := strings.Fields(written), strings.Fields(closed)
	if len(w) != 8 || len(c) != 8 {
		t.Fatalf("python3 printed %q and %q", written, closed)
	}
	whole := 0
	for i := range w {
		switch {
		case w[i] == "-" && c[i] == "-":
			whole++
		case w[i] == "ENOSPC" && c[i] == "ENOSPC":
		default:
			t.Errorf("handle %d: write %s, close %s; want both to succeed or both ENOSPC", i, w[i], c[i])
		}
	}
	if whole == 0 || whole == 8 {
		t.Errorf("%d of 8 handles wrote their 16 MiB, want some (the budget holds 4) and not all", whole)
	}
	got := storeMessages(t, m.StoreDir, "s", "")
	if len(got) != whole {
		t.Errorf("%d messages stored, want %d (one a handle that was not refused)", len(got), whole)
	}
	for i, g := range got {
		if len(g.content()) != 16<<20 {
			t.Errorf("message %d has %d bytes, want 16 MiB", i, len(g.content()))
		}
	}
	got = nil
	if held := root.Held()["buffered"]; held != 0 {
		t.Errorf("closed handles still hold %d bytes of the budget", held)
	}
	if grown := int64(heap()) - int64(start); grown > 8<<20 {
		t.Errorf("the heap is %d MiB over its start once the handles are closed", grown>>20)
	}
}

// A branch made and removed gives back what the mount held for it: after
// 2,000 forks (at the head, and after a turn), each read and removed,
// the mount's caches and its tree are the size they were.
func TestForkRemoveCyclesHoldNothing(t *testing.T) {
	// No fsync: what is counted is the mount's memory, not durability.
	m, root := mountHeld(t, filestore.Options{Sync: filestore.SyncNone}, fsnode.Options{})
	newSession(t, m.Store, "s", "", conversation...)
	cycles := `
n0, n = int(A[1]), int(A[2])
s = A[0]
for i in range(n0, n):
    b = os.path.join(s, "branches", "x%d" % i)
    os.mkdir(b)
    for f in ("transcript.md", "export.json"):
        open(os.path.join(b, f)).read()
    os.stat(os.path.join(b, "turns", "1", "messages.jsonl"))
    os.mkdir(os.path.join(s, "turns", "1", "fork", "y%d" % i))
    os.rmdir(os.path.join(s, "branches", "y%d" % i))
    os.rmdir(b)
`
	// One cycle first: the folders every cycle uses (branches/, turns/1/fork/)
	// are the mount's from then on.
	cat(t, m.P("s", "transcript.md"))
	wantOK(t, "one fork and remove", cycles, m.P("s"), "0", "1")
	start := root.Held()
	for i := 1; i < 2001; i += 250 { // in pieces, each well inside cmdTimeout
		wantOK(t, "forks and removes", cycles, m.P("s"), fmt.Sprint(i), fmt.Sprint(i+250))
	}
	eventually(t, 10*time.Second, "the mount holding no more than before the forks", func() (bool, string) {
		return holdsNoMore(root.Held(), start)
	})
}

// holdsNoMore reports whether a mount's holdings (Root.Held) are each at
// most what they were at start, and says both. Less is fine: the kernel
// may forget a node it held at the start (its dentry cache is pruned as
// it likes), which CI saw once.
func holdsNoMore(now, start map[string]int) (bool, string) {
	ok := true
	for k, n := range now {
		ok = ok && n <= start[k]
	}
	return ok, fmt.Sprintf("%v, at the start %v", now, start)
}

// Sessions made, looked at and removed through the mount leave nothing in
// it either: only a session where an editor made a temporary keeps a place
// for them.
func TestSessionsRemovedHoldNothing(t *testing.T) {
	m, root := mountHeld(t, filestore.Options{Sync: filestore.SyncNone}, fsnode.Options{})
	start := root.Held()
	wantOK(t, "200 sessions made, read and removed", `
for i in range(200):
    s = os.path.join(A[0], "s%d" % i)
    os.mkdir(s)
    os.listdir(s)
    open(os.path.join(s, "transcript.md")).read()
    open(os.path.join(s, "meta.json")).read()
    os.rmdir(s)
`, m.Dir)
	eventually(t, 10*time.Second, "the mount holding no more than before the sessions", func() (bool, string) {
		return holdsNoMore(root.Held(), start)
	})
}

// A mount leaves the kernel to remember the folders of the sessions read
// in last (fsnode.Options.MaxRemembered), not every session ever read: the
// kernel forgets the others' nodes, and so the mount its state for them.
// Listing the sessions does not count. A forgotten session reads the same
// when looked up again, and one in use (a process's working folder) keeps
// working.
func TestSessionFoldersForgotten(t *testing.T) {
	const bound, sessions = 5, 30
	m, root := mountHeld(t, filestore.Options{Sync: filestore.SyncNone}, fsnode.Options{MaxRemembered: bound})
	var names []string
	for i := range sessions {
		names = append(names, fmt.Sprintf("s%02d", i))
		newSession(t, m.Store, names[i], "", conversation...)
	}
	run(t, "ls", "-l", m.Dir)
	if n := root.Held()["remembered"]; n != 0 {
		t.Errorf("ls -l of the mount: %d session folders counted as read in", n)
	}
	start := root.Held()["nodes"]
	read := `
for s in A[1:]:
    open(os.path.join(A[0], s, "transcript.md")).read()
    open(os.path.join(A[0], s, "meta.json")).read()
`
	first := cat(t, m.P("s00", "transcript.md"))
	wantOK(t, "every session read", read, append([]string{m.Dir}, names...)...)
	// Each session read is three nodes: its folder and the two files; each
	// only listed, one.
	eventually(t, 10*time.Second, "the kernel forgetting all but the sessions read last", func() (bool, string) {
		held := root.Held()
		return held["remembered"] <= bound && held["nodes"] <= start+2*bound,
			fmt.Sprintf("%v; %d nodes before the reads", held, start)
	})
	if got := cat(t, m.P("s00", "transcript.md")); got != first {
		t.Errorf("s00 reads otherwise once forgotten and looked up again")
	}
	// A working folder inside a session outlives its forgetting.
	wantOK(t, "a working folder kept", `
os.chdir(os.path.join(A[0], "s01"))
for s in A[1:]:
    os.listdir(os.path.join(A[0], s))
assert open("transcript.md").read() == open(os.path.join(A[0], "s01", "transcript.md")).read()
`, append([]string{m.Dir}, names...)...)
}
