package fsnode

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

// A turn's time is its last message's "ts", read once while that message
// stays the same: a finished turn's is not read again (a change in place
// under the index, which only a repair makes, does not show), and the last
// turn's follows what is appended to it. The folder and its renderings
// agree.
func TestTurnTimeKept(t *testing.T) {
	store, s := testSession(t)
	msg := func(role, ts string) []byte {
		return fmt.Appendf(nil, `{"role":%q,"content":"x","ts":%q}`, role, ts)
	}
	if err := s.AppendID("", [][]byte{
		msg("user", "2024-01-01T10:00:00Z"), msg("assistant", "2024-01-01T10:01:00Z"),
		msg("user", "2024-01-01T11:00:00Z"),
	}); err != nil {
		t.Fatal(err)
	}
	fsys := New(store, Options{}).fsys
	ref := branchRef{s: s}
	dir1, dir2 := &turnDir{base: base{fsys: fsys}, ref: ref, turn: 1}, &turnDir{base: base{fsys: fsys}, ref: ref, turn: 2}
	file1 := newRenderedFile(fsys, ref, formatMarkdown, 1)
	mtime := func(getattr func(context.Context, fs.FileHandle, *fuse.AttrOut) syscall.Errno) string {
		var out fuse.AttrOut
		if errno := getattr(owner, nil, &out); errno != 0 {
			t.Fatal(errno)
		}
		return time.Unix(int64(out.Mtime), 0).UTC().Format(time.RFC3339)
	}
	dirTime := func(n *turnDir) string { return mtime(n.Getattr) }
	fileTime := func() string { return mtime(file1.Getattr) }
	if got, got2, got3 := dirTime(dir1), fileTime(), dirTime(dir2); got != "2024-01-01T10:01:00Z" || got2 != got || got3 != "2024-01-01T11:00:00Z" {
		t.Errorf("turn times %s (folder), %s (transcript.md), %s (turn 2)", got, got2, got3)
	}
	rewriteLog(t, s, "T10:01", "T10:02")
	if got, got2 := dirTime(dir1), fileTime(); got != "2024-01-01T10:01:00Z" || got2 != got {
		t.Errorf("a finished turn's time read again: %s (folder), %s (transcript.md)", got, got2)
	}
	if err := s.AppendID("", [][]byte{msg("assistant", "2024-01-01T11:05:00Z")}); err != nil {
		t.Fatal(err)
	}
	if got := dirTime(dir2); got != "2024-01-01T11:05:00Z" {
		t.Errorf("the last turn's time after an append: %s, want 2024-01-01T11:05:00Z", got)
	}
}

// rewriteLog replaces old with new, of the same length, in the default
// branch's log, in place: a change no append makes, which only a reader
// that reads the messages again can see.
func rewriteLog(t *testing.T, s backing.Session, old, new string) {
	t.Helper()
	v, err := s.ViewID("")
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(s.(*filestore.Session).Dir(), "logs", v.Branch().ID+".jsonl")
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(log, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteAt(bytes.ReplaceAll(data, []byte(old), []byte(new)), 0)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
}

// The info.json of every turn of a branch of typed events and no
// turn_end shares what telling how its turn ended read of them: each is
// read a bounded number of times, not once for every turn after it.
func TestTurnInfoSharesEndings(t *testing.T) {
	const turns = 300
	s, msgs := usageTurns(t, turns, false)
	reads := &atomic.Int64{}
	ref := branchRef{s: countingSession{s, reads}}
	ends := &branchEnds{}
	for k := 1; k <= turns; k++ {
		info := &turnInfo{ref: ref, turn: k, clock: &turnClock{}, ends: ends}
		if _, _, err := info.doc(); err != nil {
			t.Fatal(err)
		}
	}
	if n := reads.Load(); n > int64(3*len(msgs)) {
		t.Errorf("info.json of %d turns read %d messages of %d", turns, n, len(msgs))
	}
}
