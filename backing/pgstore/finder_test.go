package pgstore_test

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/importer"
	"github.com/sessfs/sessfs/backing/pgstore/pgtest"
)

// realSessions imports the real Claude Code and Codex sessions of
// ../shared/data into st, or skips the test without them.
func realSessions(t *testing.T, st backing.Store) {
	t.Helper()
	files, _ := filepath.Glob("../../../shared/data/*/*.jsonl")
	if len(files) == 0 {
		t.Skip("no real sessions in ../shared/data")
	}
	if err := importer.New(st, importer.Options{}).Run(files, func(r importer.Result) {
		if r.Err != nil {
			t.Errorf("import %s: %v", r.Path, r.Err)
		}
	}); err != nil {
		t.Fatal(err)
	}
}

// TestCatalogSpend: what the catalog says each session spent is what
// backing's rule says reading the session through the contract, forks
// included, before and after a Reindex.
func TestCatalogSpend(t *testing.T) {
	st := open(t, pgtest.URL(t))
	realSessions(t, st)
	names, err := st.Names()
	if err != nil || len(names) == 0 {
		t.Fatalf("Names = %q, %v", names, err)
	}
	// A fork of a session that spent, with a copy of a response it
	// holds (it counts once) and a message of its own.
	spentAny := false
	check := func(what string) {
		t.Helper()
		es, err := st.Catalog(backing.CatalogQuery{All: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(es) != len(names) {
			t.Fatalf("%s: catalog of %d sessions, want %d", what, len(es), len(names))
		}
		for _, e := range es {
			s, err := st.SessionByID(e.ID)
			if err != nil {
				t.Fatal(err)
			}
			want, err := backing.UsageOfSession(s)
			if err != nil {
				t.Fatal(err)
			}
			if got := e.ByModel; !reflect.DeepEqual(got, want.ByModel()) && !(len(got) == 0 && len(want.ByModel()) == 0) {
				t.Errorf("%s: %s spent %v by the catalog, %v by backing's rule", what, e.Name, got, want.ByModel())
			}
			spentAny = spentAny || len(e.ByModel) > 0
		}
	}
	check("after the import")
	if !spentAny {
		t.Fatal("no real session spent anything: the test tests nothing")
	}
	for _, name := range names {
		s, _ := st.Session(name)
		v, err := s.ViewID("")
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := v.Read(0, v.Len())
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if u, _, key := backing.UsageOf(m.Raw); !u.IsZero() && key != "" {
				f, err := s.Fork("", m.Index+1, "again")
				if err != nil {
					t.Fatal(err)
				}
				copied := append([]byte(`{"id":"copy",`), m.Raw[1:]...)
				if err := s.AppendID(f.ID, [][]byte{copied, []byte(`{"role":"user","content":"more"}`)}); err != nil {
					t.Fatal(err)
				}
				break
			}
		}
	}
	check("after forks")
	if err := st.Reindex(nil); err != nil {
		t.Fatal(err)
	}
	check("after a Reindex")
}

// TestReindexSameHits: a Reindex derives what search finds as the appends
// did.
func TestReindexSameHits(t *testing.T) {
	st := open(t, pgtest.URL(t))
	realSessions(t, st)
	queries := []string{"test", "file", "error OR fail*", `"the file"`, "commit -test"}
	before := map[string][]backing.Hit{}
	for _, q := range queries {
		hits, err := st.Search(backing.Query{Text: q, AllBranches: true})
		if err != nil {
			t.Fatal(err)
		}
		before[q] = hits
	}
	if len(before["test"]) == 0 {
		t.Fatal("no hit for test: the test tests nothing")
	}
	done := 0
	if err := st.Reindex(func(d, total int) { done = d }); err != nil {
		t.Fatal(err)
	}
	if n, _ := st.Names(); done != len(n) {
		t.Errorf("progress said %d sessions done, the store has %d", done, len(n))
	}
	for _, q := range queries {
		hits, err := st.Search(backing.Query{Text: q, AllBranches: true})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(hits, before[q]) {
			t.Errorf("Search(%q): %d hits after a Reindex, %d before", q, len(hits), len(before[q]))
		}
	}
}
