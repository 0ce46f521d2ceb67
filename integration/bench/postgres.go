package main

// The PostgreSQL server of rows P1–P5 (rows_pg.go), and their databases:
// setup, not measured.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sessfs/sessfs/backing/pgstore"
	"github.com/sessfs/sessfs/backing/pgstore/pgtest"
)

// pg is the server of this run, found or started by the first row that
// asks for it, and the databases made on it, dropped on the way out.
var pg struct {
	tried bool
	admin string         // a URL where the bench may CREATE DATABASE
	own   *pgtest.Server // the server the bench started, if it did
	err   error          // why there is none
	drops []func() error
}

// pgMissing says why there is no PostgreSQL to measure, or "" when there
// is one: -postgres (default $SESSFS_TEST_POSTGRES), else a throwaway
// server started the way the tests start theirs, durable (fsync on), since
// rows P1 and P2 measure durable appends. With SESSFS_REQUIRE_POSTGRES=1
// (CI) a missing server fails the run instead.
func pgMissing(c *config) string {
	if !pg.tried {
		pg.tried = true
		if c.postgres != "" {
			pg.admin = c.postgres
		} else if pg.own, pg.err = pgtest.Start(true); pg.err == nil {
			pg.admin = pg.own.URL()
		}
	}
	if pg.err == nil {
		return ""
	}
	if os.Getenv("SESSFS_REQUIRE_POSTGRES") == "1" {
		must(fmt.Errorf("PostgreSQL is required (SESSFS_REQUIRE_POSTGRES=1): %w", pg.err))
	}
	return fmt.Sprintf("skipped, no PostgreSQL (set -postgres or $SESSFS_TEST_POSTGRES): %v", pg.err)
}

// pgDatabase makes a fresh, empty database on the server and returns its
// URL; stopPostgres drops it.
func pgDatabase() string {
	u, drop, err := pgtest.NewDatabase(pg.admin)
	must(err)
	pg.drops = append(pg.drops, drop)
	return u
}

// openPG opens the store in the database at url, durable, as `sessfs
// mount --store postgres://…` does.
func openPG(url string) *pgstore.Store {
	// As `sessfs mount` opens it.
	return must1(pgstore.Open(url, pgstore.Options{OutageWait: pgstore.DefaultTimeout, KeepRows: true}))
}

// plainConn connects to the database at url for the native side of a
// row, with a plain table of its own to insert into.
func plainConn(url, table string) *pgx.Conn {
	ctx := context.Background()
	conn := must1(pgx.Connect(ctx, url))
	must1(conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+table+` (k bigserial PRIMARY KEY, raw bytea NOT NULL)`))
	return conn
}

// insertLoop inserts raw ops times into table, each INSERT its own
// transaction (committed as it returns), and returns the time per insert:
// the native floor of a durable append.
func insertLoop(conn *pgx.Conn, table string, raw []byte, ops int) time.Duration {
	ctx := context.Background()
	sql := `INSERT INTO ` + table + ` (raw) VALUES ($1)`
	t0 := time.Now()
	for range ops {
		must1(conn.Exec(ctx, sql, raw))
	}
	return time.Since(t0) / time.Duration(ops)
}

// stopPostgres drops the databases of this run and stops the server the
// bench started, after every mount is down (unmountAll).
func stopPostgres() {
	for _, drop := range pg.drops {
		if err := drop(); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
		}
	}
	pg.drops = nil
	if pg.own != nil {
		if err := pg.own.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "bench: stopping the PostgreSQL server:", err)
		}
		pg.own = nil
	}
}

// sessfsBin is the sessfs binary of row P4's daemons, built once a run.
var sessfsBin string

func buildSessfs(c *config) string {
	if sessfsBin == "" {
		bin := filepath.Join(c.work, "sessfs")
		if out, err := exec.Command("go", "build", "-o", bin, "github.com/sessfs/sessfs/cmd/sessfs").CombinedOutput(); err != nil {
			must(fmt.Errorf("go build ./cmd/sessfs: %v\n%s", err, out))
		}
		sessfsBin = bin
	}
	return sessfsBin
}
