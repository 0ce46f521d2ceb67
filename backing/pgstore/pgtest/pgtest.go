package pgtest

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
)

var (
	inMain  atomic.Bool // Main runs the tests: it stops the server after
	once    sync.Once
	own     *server // the server pgtest started, if it did
	admin   string  // the URL of the server's admin database
	failure error   // why there is no server
	counter atomic.Int64
)

// Main runs a package's tests (m.Run) and then stops the server URL
// started, if it started one. A package that calls URL calls it from
// TestMain: func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }.
func Main(m *testing.M) int {
	inMain.Store(true)
	code := m.Run()
	if own != nil {
		if err := own.stop(); err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: stopping the test server: %v\n", err)
		}
	}
	return code
}

// setup finds the server, or starts one, once per process.
func setup() {
	if u := os.Getenv("SESSFS_TEST_POSTGRES"); u != "" {
		admin = u
		return
	}
	if !inMain.Load() {
		failure = fmt.Errorf("pgtest: the package's TestMain must run its tests through pgtest.Main, which stops the server it starts")
		return
	}
	own, failure = startServer()
	if failure == nil {
		admin = own.url("postgres")
	}
}

// URL returns the URL of a fresh, empty database of t's own, dropped when
// t ends.
func URL(t testing.TB) string {
	t.Helper()
	once.Do(setup)
	if failure != nil {
		if os.Getenv("SESSFS_REQUIRE_POSTGRES") == "1" {
			t.Fatalf("PostgreSQL is required (SESSFS_REQUIRE_POSTGRES=1): %v", failure)
		}
		t.Skipf("skipped, no PostgreSQL: %v", failure)
	}
	u, drop, err := NewDatabase(admin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := drop(); err != nil {
			t.Error(err)
		}
	})
	return u
}
