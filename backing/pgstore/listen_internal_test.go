package pgstore

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/pgstore/pgtest"
)

// TestFeedResync: a listener further behind than the changes kept reports
// everything it follows as changed, rather than nothing.
func TestFeedResync(t *testing.T) {
	defer func(k int64) { keepChanges = k }(keepChanges)
	keepChanges = 3
	st, err := Open(pgtest.URL(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, _, err := st.Create("s", backing.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []backing.Change
	sub := st.Subscribe(func(c backing.Change) {
		mu.Lock()
		got = append(got, c)
		mu.Unlock()
	})
	defer sub.Close()
	sub.Follow(s.ID())
	ctx := context.Background()
	// A listener of its own, left behind: the one Subscribe started
	// would keep up.
	l := &listener{st: st, gaps: map[int64]time.Time{}}
	if err := st.pool.QueryRow(ctx, `SELECT max(revision) FROM changes`).Scan(&l.last); err != nil {
		t.Fatal(err)
	}
	for range 10 {
		if err := s.AppendID("", [][]byte{[]byte(`{"role":"user","content":"x"}`)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.pruneChanges(ctx); err != nil {
		t.Fatal(err)
	}
	var left int
	st.pool.QueryRow(ctx, `SELECT count(*) FROM changes`).Scan(&left)
	if left > 4 {
		t.Errorf("%d changes left after a prune to 3 (and the last of names)", left)
	}
	mu.Lock()
	got = nil
	mu.Unlock()
	if err := l.catchUp(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	kinds := map[backing.ChangeKind]bool{}
	for _, c := range got {
		kinds[c.Kind] = true
		if c.Kind == backing.Appended && (c.Session != s.ID() || c.Len != -1) {
			t.Errorf("resync reported %+v", c)
		}
	}
	if !kinds[backing.NamesChanged] || !kinds[backing.MetaChanged] || !kinds[backing.BranchesChanged] || !kinds[backing.Appended] {
		t.Errorf("resync reported %+v; want every kind of change for the followed session", got)
	}
	if st.NamesChanged().IsZero() {
		t.Error("the prune took the last change of a name")
	}
}

// TestListenerOwnNext: a notification of this process's change at the
// next revision is taken as read; any other is read from the table.
func TestListenerOwnNext(t *testing.T) {
	st := &Store{origin: "0190a1b2-0000-7000-8000-000000000001"}
	l := &listener{st: st, last: 5, gaps: map[int64]time.Time{}}
	for _, c := range []struct {
		payload string
		want    bool
		last    int64
	}{
		{"6 " + st.origin, true, 6},
		{"8 " + st.origin, false, 6},                         // a revision skipped: read
		{"7 0190a1b2-0000-7000-8000-000000000002", false, 6}, // another writer's
		{"7", false, 6},                                      // a payload of an older sessfs
		{"x " + st.origin, false, 6},
	} {
		if got := l.ownNext(c.payload); got != c.want || l.last != c.last {
			t.Errorf("ownNext(%q) = %v, last %d; want %v, last %d", c.payload, got, l.last, c.want, c.last)
		}
	}
	l.gaps[3] = time.Now()
	if l.ownNext("7 " + st.origin) {
		t.Error("taken as read with a revision still looked for")
	}
}
