package pgtest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Start starts a throwaway server for a program that is not a test (the
// benchmark, integration/bench), as Own does for a test; Close stops and
// removes it. durable keeps fsync and synchronous commit on, as on a real
// server, where the tests' servers turn them off.
func Start(durable bool) (*Server, error) {
	s, err := startCluster(durable)
	if err != nil {
		return nil, err
	}
	return &Server{s: s}, nil
}

// Close stops the server at once and removes its folder and data.
func (s *Server) Close() error { return s.s.stop() }

// NewDatabase creates a fresh, empty database on the server whose URL is
// admin (a user that may CREATE DATABASE), and returns its URL and drop,
// which drops it, its connections cut.
func NewDatabase(admin string) (dbURL string, drop func() error, err error) {
	name := fmt.Sprintf("sessfs_test_%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9, counter.Add(1))
	if dbURL, err = withDatabase(admin, name); err != nil {
		return "", nil, err
	}
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
		return "", nil, fmt.Errorf("create a test database: %w", err)
	}
	drop = func() error {
		if err := exec(`DROP DATABASE ` + name + ` WITH (FORCE)`); err != nil {
			return fmt.Errorf("drop the test database %s: %w", name, err)
		}
		return nil
	}
	return dbURL, drop, nil
}

// withDatabase is the URL u with its database replaced by db.
func withDatabase(u, db string) (string, error) {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "postgres" && p.Scheme != "postgresql") {
		return "", fmt.Errorf("SESSFS_TEST_POSTGRES must be a postgres:// URL, not %q", u)
	}
	p.Path = "/" + strings.TrimPrefix(db, "/")
	return p.String(), nil
}
