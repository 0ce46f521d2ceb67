package pgstore_test

import (
	"sync"
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/pgstore"
	"github.com/sessfs/sessfs/backing/pgstore/pgtest"
	"github.com/sessfs/sessfs/backing/storetest"
)

// open opens the store at url, closed when t ends.
func open(t testing.TB, url string) *pgstore.Store {
	t.Helper()
	return openWith(t, url, pgstore.Options{})
}

// openWith opens the store at url with opts, closed when t ends.
func openWith(t testing.TB, url string, opts pgstore.Options) *pgstore.Store {
	t.Helper()
	opts.Logf = t.Logf
	st, err := pgstore.Open(url, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	return st
}

// TestConformance runs the contract's conformance suite against the
// PostgreSQL engine, each test in a database of its own; again opens the
// same database in a new Store, as another machine would.
func TestConformance(t *testing.T) {
	conformance(t, pgstore.Options{})
}

// TestConformanceKeptRows runs it against the engine as a mount opens it:
// keeping rows between calls, its listener running from Open to Close.
func TestConformanceKeptRows(t *testing.T) {
	conformance(t, pgstore.Options{KeepRows: true})
}

func conformance(t *testing.T, opts pgstore.Options) {
	var mu sync.Mutex
	urls := map[backing.Store]string{}
	storetest.Run(t,
		func(t *testing.T) backing.Store {
			url := pgtest.URL(t)
			st := openWith(t, url, opts)
			mu.Lock()
			urls[st] = url
			mu.Unlock()
			return st
		},
		func(t *testing.T, st backing.Store) backing.Store {
			mu.Lock()
			url := urls[st]
			mu.Unlock()
			return openWith(t, url, opts)
		})
}
