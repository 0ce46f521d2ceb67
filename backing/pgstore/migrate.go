package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/sessfs/sessfs/backing"
)

// migrateLock is the advisory lock key that serializes migrations: two
// processes opening a new database at once must not both create it.
const migrateLock = 0x5e55f5 // "sessfs"

// Migrate creates the schema in the database pool reaches, or upgrades it
// to SchemaVersion, and returns the version it is at. It is safe to run
// from several processes at once, and a database at the current version
// costs it one query. A database newer than this sessfs is refused with
// backing.ErrFormat rather than written to.
func Migrate(ctx context.Context, pool *pgxpool.Pool) (int, error) {
	if v, err := version(ctx, pool); err == nil && v == SchemaVersion {
		return v, nil // the common case: nothing to lock
	}
	var got int
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrateLock); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
			version integer PRIMARY KEY,
			applied timestamptz NOT NULL DEFAULT now())`); err != nil {
			return err
		}
		var v int
		if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_version`).Scan(&v); err != nil {
			return err
		}
		if v > SchemaVersion {
			return fmt.Errorf("%w: the database has schema %d, this sessfs reads up to %d; upgrade sessfs",
				backing.ErrFormat, v, SchemaVersion)
		}
		for k := v + 1; k <= SchemaVersion; k++ {
			if _, err := tx.Exec(ctx, migrations[k]); err != nil {
				return fmt.Errorf("schema migration %d: %w", k, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO schema_version (version) VALUES ($1)`, k); err != nil {
				return err
			}
		}
		got = SchemaVersion
		return nil
	})
	return got, err
}

// version is the schema version of the database; an error when it has no
// schema yet.
func version(ctx context.Context, pool *pgxpool.Pool) (int, error) {
	var v int
	err := pool.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_version`).Scan(&v)
	if err != nil {
		return 0, err
	}
	if v > SchemaVersion {
		return v, errors.New("newer schema")
	}
	return v, nil
}

// MigrateURL is Migrate for the database at dsn, on a connection of its
// own: what `sessfs db migrate` runs, without opening a Store.
func MigrateURL(dsn string, timeout time.Duration) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", redact(dsn), err)
	}
	defer pool.Close()
	v, err := Migrate(ctx, pool)
	if err != nil {
		return v, fmt.Errorf("%s: %w", redact(dsn), err)
	}
	return v, nil
}
