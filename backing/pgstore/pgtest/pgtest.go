package pgtest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
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
	name := fmt.Sprintf("sessfs_test_%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9, counter.Add(1))
	exec := func(sql string) error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		conn, err := pgx.Connect(ctx, admin)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, sql)
		return err
	}
	// template0 with the encoding and collation set: the same database on
	// any server, whatever its defaults.
	if err := exec(`CREATE DATABASE ` + name + ` TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`); err != nil {
		t.Fatalf("create a test database: %v", err)
	}
	t.Cleanup(func() {
		if err := exec(`DROP DATABASE ` + name + ` WITH (FORCE)`); err != nil {
			t.Errorf("drop the test database %s: %v", name, err)
		}
	})
	return withDatabase(t, admin, name)
}

// withDatabase is the URL u with its database replaced by db.
func withDatabase(t testing.TB, u, db string) string {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "postgres" && p.Scheme != "postgresql") {
		t.Fatalf("SESSFS_TEST_POSTGRES must be a postgres:// URL, not %q", u)
	}
	p.Path = "/" + strings.TrimPrefix(db, "/")
	return p.String()
}
