package backing_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

func openStore(t *testing.T) *filestore.Store {
	t.Helper()
	st, err := filestore.Open(t.TempDir(), filestore.Options{Sync: filestore.SyncNone})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// session makes a session with messages msgs, last active at t.
func session(t *testing.T, st backing.Store, name string, m backing.Meta, at time.Time, msgs ...string) backing.Session {
	t.Helper()
	m.Created = at.Add(-time.Minute) // kept, as for an import
	s, _, err := st.Create(name, m)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) > 0 {
		raw := make([][]byte, len(msgs))
		for i, c := range msgs {
			raw[i] = []byte(`{"role":"user","content":"` + c + `"}`)
		}
		if err := s.AppendID("", raw); err != nil {
			t.Fatal(err)
		}
	}
	b, err := s.Branch("")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Backdate(b.ID, at); err != nil {
		t.Fatal(err)
	}
	return s
}

func names(es []backing.Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Name)
	}
	return out
}

// Without an index, the catalog is built from the sessions: newest
// activity first (ties by name), with the project, agent and stored size
// of each, and archived and trashed sessions only when asked.
func TestCatalogOfWithoutIndex(t *testing.T) {
	fst := openStore(t)
	st := listOnly{fst}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	session(t, st, "old", backing.Meta{Cwd: "/home/a/work/app"}, t0, "one")
	mid := session(t, st, "mid", backing.Meta{Project: "mine", Tags: []string{"x"}}, t0.Add(time.Hour), "one", "two")
	session(t, st, "tie-b", backing.Meta{}, t0.Add(2*time.Hour))
	session(t, st, "tie-a", backing.Meta{}, t0.Add(2*time.Hour))
	session(t, st, "gone", backing.Meta{}, t0.Add(3*time.Hour))
	session(t, st, "shelved", backing.Meta{}, t0.Add(4*time.Hour))
	if err := st.Trash("gone"); err != nil {
		t.Fatal(err)
	}
	if err := st.Archive("shelved"); err != nil {
		t.Fatal(err)
	}

	es, err := backing.CatalogOf(st, backing.CatalogQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(es), []string{"tie-a", "tie-b", "mid", "old"}; !slices.Equal(got, want) {
		t.Fatalf("catalog order %q, want %q", got, want)
	}
	m := es[2]
	if m.ID != mid.ID() || m.State != backing.StateActive || m.Project != "mine" || m.Agent != "sessfs" ||
		!slices.Equal(m.Tags, []string{"x"}) || m.Messages != 2 || !m.LastActivity.Equal(t0.Add(time.Hour)) || m.Created.IsZero() {
		t.Errorf("entry of mid: %+v", m)
	}
	if es[3].Project != "work/app" {
		t.Errorf("project of old: %q", es[3].Project)
	}
	for q, want := range map[backing.CatalogQuery][]string{
		{Project: "work"}: {"old"}, {Project: "wor"}: nil, {Tag: "x"}: {"mid"}, {Tag: "x", Project: "work"}: nil,
	} {
		if es, err := backing.CatalogOf(st, q); err != nil || !slices.Equal(names(es), want) {
			t.Errorf("CatalogOf(%+v) = %q, %v; want %q", q, names(es), err, want)
		}
	}

	// A fork copies no message, so it adds nothing to the stored size;
	// an append to it does.
	before := m.Bytes
	if before <= 0 {
		t.Fatalf("bytes of mid: %d", before)
	}
	b, err := mid.Fork("", backing.Head, "f")
	if err != nil {
		t.Fatal(err)
	}
	if bytesOf(t, st, "mid") != before {
		t.Errorf("a fork changed the stored size")
	}
	if err := mid.AppendID(b.ID, [][]byte{[]byte(`{"role":"user","content":"x"}`)}); err != nil {
		t.Fatal(err)
	}
	if got := bytesOf(t, st, "mid"); got <= before {
		t.Errorf("stored size after an append to a fork: %d, was %d", got, before)
	}

	all, err := backing.CatalogOf(st, backing.CatalogQuery{All: true})
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]string{}
	for _, e := range all {
		states[e.Name] = e.State
	}
	if states["gone"] != backing.StateTrashed || states["shelved"] != backing.StateArchived || len(all) != 6 {
		t.Errorf("catalog with all: %v", states)
	}
}

func bytesOf(t *testing.T, st backing.Store, name string) int64 {
	t.Helper()
	es, err := backing.CatalogOf(st, backing.CatalogQuery{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if e.Name == name {
			return e.Bytes
		}
	}
	t.Fatalf("%s not in the catalog", name)
	return 0
}

// A session whose meta.json cannot be read is still listed, by name and
// id, in the state its name says.
func TestCatalogOfUnreadable(t *testing.T) {
	fst := openStore(t)
	st := listOnly{fst}
	s := session(t, st, "bad", backing.Meta{}, time.Now())
	session(t, st, "shelved", backing.Meta{}, time.Now())
	sh, _ := st.Session("shelved")
	if err := st.Archive("shelved"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{s.ID(), sh.ID()} {
		if err := os.WriteFile(filepath.Join(fst.Location(), "sessions", id, "meta.json"), []byte("garbage"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	es, err := backing.CatalogOf(st, backing.CatalogQuery{All: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range es {
		got[e.Name+" "+e.ID] = e.State
	}
	if got["bad "+s.ID()] != backing.StateActive || got["shelved "+sh.ID()] != backing.StateArchived {
		t.Errorf("unreadable sessions listed as %v", got)
	}
}

// listOnly is a store without an index: CatalogOf reads its sessions.
type listOnly struct{ backing.Store }

// finder is a store with an index: its catalog is the index's.
type finder struct {
	backing.Store
	entries []backing.Entry
	err     error // what Catalog fails with, if it does
}

func (f finder) Search(backing.Query) ([]backing.Hit, error)           { return nil, nil }
func (f finder) Catalog(backing.CatalogQuery) ([]backing.Entry, error) { return f.entries, f.err }
func (f finder) Reindex(func(done, total int)) error                   { return nil }

func TestCatalogOfAsksTheIndex(t *testing.T) {
	st := openStore(t)
	session(t, st, "real", backing.Meta{}, time.Now())
	f := finder{Store: st, entries: []backing.Entry{{Name: "from-the-index"}}}
	es, err := backing.CatalogOf(f, backing.CatalogQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(es); !slices.Equal(got, []string{"from-the-index"}) {
		t.Errorf("catalog of a Finder: %q", got)
	}
}

// An index that cannot answer (a read-only disk) does not fail a listing:
// the catalog is read from the sessions.
func TestCatalogOfIndexFails(t *testing.T) {
	st := openStore(t)
	session(t, st, "real", backing.Meta{}, time.Now())
	f := finder{Store: st, err: errors.New("read-only file system")}
	es, err := backing.CatalogOf(f, backing.CatalogQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(es); !slices.Equal(got, []string{"real"}) {
		t.Errorf("catalog when the index fails: %q", got)
	}
}
