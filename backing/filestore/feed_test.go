package filestore

import (
	"sync"
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// recorder keeps the changes a subscription reports.
type recorder struct {
	mu  sync.Mutex
	got []backing.Change
}

func (r *recorder) add(c backing.Change) {
	r.mu.Lock()
	r.got = append(r.got, c)
	r.mu.Unlock()
}

// has reports whether a change like want came (Len -2: any length).
func (r *recorder) has(want backing.Change) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.got {
		if c.Kind == want.Kind && c.Session == want.Session && (want.Branch == "" || c.Branch == want.Branch) && (want.Len == -2 || c.Len == want.Len) {
			return true
		}
	}
	return false
}

// await polls until a change like want came, for a deadline well past the
// contract's second (a loaded machine must not fail the test).
func (r *recorder) await(t *testing.T, want backing.Change) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if r.has(want) {
			return
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	t.Fatalf("no %v change of %s/%s; got %+v", want.Kind, want.Session, want.Branch, r.got)
}

// This process's changes reach a subscriber before the call returns;
// another writer's (a second Store on the same folder, as another process
// has) within the poll, for followed sessions; names for all.
func TestChangeFeed(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "s")
	main, err := s.Branch("")
	if err != nil {
		t.Fatal(err)
	}
	var r recorder
	sub := st.Subscribe(r.add)
	defer sub.Close()
	sub.Follow(s.ID())

	if err := s.AppendID("", [][]byte{msg("user", "q")}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []backing.Change{
		{Kind: backing.Appended, Session: s.ID(), Branch: main.ID, Len: 1},
		{Kind: backing.MetaChanged, Session: s.ID(), Len: -2}, // the first prompt titled it
	} {
		if !r.has(c) {
			t.Errorf("no %+v before AppendID returned: %+v", c, r.got)
		}
	}
	b, err := s.Fork("", backing.Head, "x")
	if err != nil {
		t.Fatal(err)
	}
	if !r.has(backing.Change{Kind: backing.BranchesChanged, Session: s.ID(), Branch: b.ID, Len: -2}) {
		t.Errorf("no fork change: %+v", r.got)
	}
	if err := st.Rename("s", "t"); err != nil {
		t.Fatal(err)
	}
	if !r.has(backing.Change{Kind: backing.NamesChanged, Session: s.ID(), Len: -2}) {
		t.Errorf("no names change: %+v", r.got)
	}

	// Another writer.
	st2, err := Open(st.Root(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	s2 := concrete(st2.Session("t"))
	if err := s2.AppendID(b.ID, [][]byte{msg("user", "from elsewhere")}); err != nil {
		t.Fatal(err)
	}
	r.await(t, backing.Change{Kind: backing.Appended, Session: s.ID(), Branch: b.ID, Len: 2})
	if err := s2.SetExtra("note", []byte(`"x"`)); err != nil {
		t.Fatal(err)
	}
	r.await(t, backing.Change{Kind: backing.MetaChanged, Session: s.ID(), Len: -2})
	if err := s2.RenameBranch(b.ID, "y"); err != nil {
		t.Fatal(err)
	}
	r.await(t, backing.Change{Kind: backing.BranchesChanged, Session: s.ID(), Len: -2})
	if _, _, err := st2.Create("u", backing.Meta{}); err != nil {
		t.Fatal(err)
	}
	r.await(t, backing.Change{Kind: backing.NamesChanged, Len: -2})

	// After Close, nothing more.
	sub.Close()
	r.mu.Lock()
	n := len(r.got)
	r.mu.Unlock()
	if err := s.AppendID("", [][]byte{msg("user", "after")}); err != nil {
		t.Fatal(err)
	}
	if r.mu.Lock(); len(r.got) != n {
		t.Errorf("a change after Close: %+v", r.got[n:])
	}
	r.mu.Unlock()
}
