package pgstore

import (
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/pgstore/pgtest"
)

var cacheMsg = []byte(`{"role":"user","content":"a line"}`)

// keptRows opens the database at url twice, as two machines: a, as a
// mount opens it (keeping rows), and b, as a command does.
func keptRows(t *testing.T) (a, b *Store, sa, sb *Session) {
	t.Helper()
	url := pgtest.URL(t)
	var err error
	if a, err = Open(url, Options{KeepRows: true, Logf: t.Logf}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	if b, err = Open(url, Options{Logf: t.Logf}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	s, _, err := b.Create("s", backing.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	return a, b, a.handle(s.ID()), b.handle(s.ID())
}

// waitLive waits until a's listener has caught up, as it does within a
// poll of its start.
func waitLive(t *testing.T, a *Store) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); !a.cacheOn.Load(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the listener of a store that keeps rows never caught up")
		}
	}
}

// eventually polls cond until it holds, for up to the second within which
// the contract shows another writer's change.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%s: not seen within 1s", what)
		}
	}
}

// waitKept waits until s keeps its rows: once the listener has told the
// session's creation.
func waitKept(t *testing.T, s *Session) {
	t.Helper()
	eventually(t, "rows kept", func() bool {
		viewLen(t, s, "")
		s.Trashed()
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.rows.set.ok && s.rows.state.ok
	})
}

func viewLen(t *testing.T, s *Session, branch string) int {
	t.Helper()
	v, err := s.ViewID(branch)
	if err != nil {
		t.Fatal(err)
	}
	return v.Len()
}

// TestKeptRowsFollowOtherWriters: what a store keeps is dropped when
// another writer's change reaches its listener: appends, forks, renames
// and the trash, seen within the contract's second.
func TestKeptRowsFollowOtherWriters(t *testing.T) {
	a, b, sa, sb := keptRows(t)
	waitLive(t, a)
	if n := viewLen(t, sa, ""); n != 0 {
		t.Fatalf("new session: %d messages", n)
	}
	waitKept(t, sa)
	if err := sb.AppendID("", [][]byte{cacheMsg}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "another writer's append", func() bool { return viewLen(t, sa, "") == 1 })
	if _, err := sb.Fork("", backing.Head, "x"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "another writer's fork", func() bool {
		_, err := sa.Branch("x")
		return err == nil
	})
	x, err := sb.Branch("x")
	if err != nil {
		t.Fatal(err)
	}
	if err := sb.RenameBranch(x.ID, "y"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "another writer's rename", func() bool {
		br, err := sa.BranchByID(x.ID)
		return err == nil && br.Name == "y"
	})
	if err := b.Trash("s"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "another writer's trash", sa.Trashed)
}

// TestKeptRowsOwnAppends: this process's appends are seen at once, each
// view counting every message acknowledged before it, without asking the
// database (the rows brought up to date by the append's own answer).
func TestKeptRowsOwnAppends(t *testing.T) {
	a, _, sa, _ := keptRows(t)
	waitLive(t, a)
	waitKept(t, sa)
	for i := 1; i <= 20; i++ {
		if err := sa.AppendID("", [][]byte{cacheMsg}); err != nil {
			t.Fatal(err)
		}
		if n := viewLen(t, sa, ""); n != i {
			t.Fatalf("after %d appends of its own, the view has %d", i, n)
		}
	}
	sa.mu.Lock()
	set, main := sa.rows.set.v, sa.main
	sa.mu.Unlock()
	if set == nil || set[main].NextSeq != 20 {
		t.Errorf("the rows kept after 20 appends of its own: %v", set)
	}
}

// TestKeptRowsNotWhileAway: while the listener is not caught up (lost its
// connection, or never started, as in a command) nothing is kept, and
// another writer's append is seen by the next view.
func TestKeptRowsNotWhileAway(t *testing.T) {
	a, _, sa, sb := keptRows(t)
	waitLive(t, a)
	viewLen(t, sa, "")
	a.feed.stop() // its listener gone, as when its connection drops
	if err := sb.AppendID("", [][]byte{cacheMsg}); err != nil {
		t.Fatal(err)
	}
	if n := viewLen(t, sa, ""); n != 1 {
		t.Fatalf("with the listener away, a view shows %d messages, not the 1 appended", n)
	}
	if a.cacheOn.Load() {
		t.Error("rows may be kept with no listener")
	}

	// A read that began before a change was told is not kept.
	a.cacheLive(true)
	gen, epoch, _, ok := sa.cacheMark()
	if !ok {
		t.Fatal("no mark with the listener caught up")
	}
	sa.changed()
	sa.mu.Lock()
	keep := sa.keepable(gen, epoch)
	sa.mu.Unlock()
	if keep {
		t.Error("a read begun before a change may be kept")
	}
}

// Two reads racing before a change is told: the one begun later (which
// saw the database as new or newer) is what stays kept, whichever ends
// first, so nothing served goes back in time.
func TestKeptRowsLaterReadWins(t *testing.T) {
	a, _, sa, _ := keptRows(t)
	waitLive(t, a)
	sa.changed()
	state := func(c *rowCache) *kept[string] { return &c.state }
	started, release, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		keep(sa, state, func() (string, error) { close(started); <-release; return "older", nil })
	}()
	<-started
	if v, _ := keep(sa, state, func() (string, error) { return "newer", nil }); v != "newer" {
		t.Fatalf("the later read answered %q", v)
	}
	close(release)
	<-done
	v, _ := keep(sa, state, func() (string, error) { return "read again", nil })
	if v != "newer" {
		t.Fatalf("kept %q after \"newer\" was given out", v)
	}
}
