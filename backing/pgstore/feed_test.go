package pgstore_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/pgstore"
	"github.com/sessfs/sessfs/backing/pgstore/pgtest"
)

// changeLog records what a subscription reports.
type changeLog struct {
	mu  sync.Mutex
	got []backing.Change
}

func (l *changeLog) add(c backing.Change) {
	l.mu.Lock()
	l.got = append(l.got, c)
	l.mu.Unlock()
}

// waitFor polls until a change like want (Len -2: any) came, for up to 5 s.
func (l *changeLog) waitFor(t *testing.T, what string, want backing.Change) time.Duration {
	t.Helper()
	start := time.Now()
	for time.Since(start) < 5*time.Second {
		l.mu.Lock()
		for _, c := range l.got {
			if c.Kind == want.Kind && c.Session == want.Session && (want.Branch == "" || c.Branch == want.Branch) &&
				(want.Len == -2 || c.Len == want.Len) {
				l.mu.Unlock()
				return time.Since(start)
			}
		}
		l.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	t.Fatalf("%s: no change %+v in %v; got %+v", what, want, time.Since(start), l.got)
	return 0
}

// followed makes session s in a store that follows it and logs what it
// is told, and opens the same database again as another machine would.
func followed(t *testing.T) (s backing.Session, log *changeLog, other *pgstore.Store) {
	t.Helper()
	url := pgtest.URL(t)
	st := open(t, url)
	other = open(t, url)
	s, _, err := st.Create("s", backing.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	log = &changeLog{}
	sub := st.Subscribe(log.add)
	t.Cleanup(sub.Close)
	sub.Follow(s.ID())
	return s, log, other
}

// TestFeedLateCommit: a change whose transaction took its revision before
// another's but commits after it is still reported: the listener looks
// again for the revisions it skipped.
func TestFeedLateCommit(t *testing.T) {
	s, log, other := followed(t)

	// A transaction that takes a revision and holds it, uncommitted.
	ctx := context.Background()
	tx, err := other.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `INSERT INTO changes (session_id, kind, origin, at)
		VALUES ($1, 3, gen_random_uuid(), now())`, s.ID()); err != nil {
		t.Fatal(err)
	}
	// A later revision, committed first and reported.
	s2, err := other.SessionByID(s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if err := s2.AppendID("", [][]byte{[]byte(`{"role":"user","content":"x"}`)}); err != nil {
		t.Fatal(err)
	}
	log.waitFor(t, "append", backing.Change{Kind: backing.Appended, Session: s.ID(), Len: 1})
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	log.waitFor(t, "the change committed late", backing.Change{Kind: backing.MetaChanged, Session: s.ID(), Len: -2})
}

// TestFeedReconnects: when the listener's connection is cut (a restart, a
// failover, pg_terminate_backend), it connects again and reports what
// changed meanwhile.
func TestFeedReconnects(t *testing.T) {
	s, log, other := followed(t)
	s2, err := other.SessionByID(s.ID())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := 1; i <= 3; i++ {
		// Every connection that listens, cut; then a change.
		if _, err := other.Pool().Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
			WHERE datname = current_database() AND query LIKE 'LISTEN%'`); err != nil {
			t.Fatal(err)
		}
		if err := s2.AppendID("", [][]byte{[]byte(`{"role":"user","content":"x"}`)}); err != nil {
			t.Fatal(err)
		}
		log.waitFor(t, "an append after the cut", backing.Change{Kind: backing.Appended, Session: s.ID(), Len: i})
	}
}

// TestFeedLatency measures how soon another writer's append is reported:
// the contract says within a second; a notification makes it much less.
func TestFeedLatency(t *testing.T) {
	s, log, other := followed(t)
	s2, err := other.SessionByID(s.ID())
	if err != nil {
		t.Fatal(err)
	}
	var worst time.Duration
	for i := 1; i <= 20; i++ {
		start := time.Now()
		if err := s2.AppendID("", [][]byte{[]byte(`{"role":"user","content":"x"}`)}); err != nil {
			t.Fatal(err)
		}
		log.waitFor(t, "append", backing.Change{Kind: backing.Appended, Session: s.ID(), Len: i})
		worst = max(worst, time.Since(start))
	}
	t.Logf("another writer's append reported within %v (worst of 20)", worst)
	if worst > time.Second {
		t.Errorf("an append was reported after %v, the contract says within a second", worst)
	}
}
