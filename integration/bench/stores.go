package main

// Stores and in-process mounts: setup, not measured.

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
	"github.com/sessfs/sessfs/fsnode"
	"github.com/sessfs/sessfs/integration/mounttest"
)

// storeSeq numbers the stores of this run.
var storeSeq int

// newStore makes a fresh store in the work folder.
func newStore(c *config, opts filestore.Options) *filestore.Store {
	storeSeq++
	return must1(filestore.Open(filepath.Join(c.work, fmt.Sprintf("store%d", storeSeq)), opts))
}

// reopen opens the store afresh, so that no index or branch cache is warm.
func reopen(st *filestore.Store) *filestore.Store {
	return must1(filestore.Open(st.Root(), st.Options()))
}

// fill writes n messages straight into the default branch's log of s (setup,
// not measured). Roughly 1 session in 10 gets needle in one message when
// needle is not empty.
func fill(s backing.Session, n int, needle string) {
	b := must1(s.Branch(""))
	path := filepath.Join(sessionDir(s), "logs", b.ID+".jsonl")
	f := must1(os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600))
	w := bufio.NewWriterSize(f, 1<<20)
	for i := range n {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		word := "lorem ipsum dolor"
		if needle != "" && i == n/2 {
			word = needle
		}
		fmt.Fprintf(w, `{"id":"01900000-0000-7000-8000-%012d","ts":"2026-01-01T00:00:00Z","role":"%s","content":"message %d %s sit amet"}`+"\n", i, role, i, word)
	}
	must(w.Flush())
	must(f.Sync())
	must(f.Close())
}

// mounts is every mount of this run not yet unmounted, for unmountAll.
var (
	mountsMu sync.Mutex
	mounts   = map[string]*fuse.Server{}
)

// mountStore mounts st (of either engine) on a fresh folder of the work
// folder and returns the folder, the server and the time from fs.Mount to
// the first stat of the root.
func mountStore(c *config, st backing.Store) (string, *fuse.Server, time.Duration) {
	mnt := must1(os.MkdirTemp(c.work, "mnt-"))
	t0 := time.Now()
	server, err := fsnode.MountServer(mnt, fsnode.New(st, fsnode.Options{}), fsnode.MountOptions(st, fsnode.Options{}))
	must(err)
	mountsMu.Lock()
	mounts[mnt] = server
	mountsMu.Unlock()
	for {
		if _, err := os.Stat(mnt); err == nil {
			break
		}
		if time.Since(t0) > 10*time.Second {
			must(fmt.Errorf("mount %s: root never became statable", mnt))
		}
		time.Sleep(time.Millisecond)
	}
	return mnt, server, time.Since(t0)
}

// unmount takes down the mount at mnt, retrying for 2 s while files of it
// are still open, and removes the folder.
func unmount(mnt string) error {
	mountsMu.Lock()
	server := mounts[mnt]
	delete(mounts, mnt)
	mountsMu.Unlock()
	if server == nil {
		return nil
	}
	if err := mounttest.Unmount(server, mnt, 2*time.Second); err != nil {
		return fmt.Errorf("unmount %s: %w", mnt, err)
	}
	os.Remove(mnt)
	return nil
}

// unmountAll takes down every mount still up, on the way out: in-process
// ones and the daemons of -scale.
func unmountAll() {
	unmountDaemons()
	mountsMu.Lock()
	var all []string
	for m := range mounts {
		all = append(all, m)
	}
	mountsMu.Unlock()
	for _, m := range all {
		if err := unmount(m); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
		}
	}
}

// checkMounts returns any mount under work still in the mount table, and
// detaches it, as a last resort, so that the work folder can go.
func checkMounts(work string) string {
	table, _ := fsnode.MountTable()
	var left []string
	for _, m := range table {
		if strings.HasPrefix(m.Dir, work+"/") {
			left = append(left, m.Dir)
			mounttest.ForceUnmount(m.Dir)
		}
	}
	return strings.Join(left, " ")
}

// sessionDir is the folder of a session of the file engine, where fill
// writes its logs directly.
func sessionDir(s backing.Session) string { return s.(*filestore.Session).Dir() }
