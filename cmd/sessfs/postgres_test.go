package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/backing/pgstore/pgtest"
)

// TestPostgresStore: a postgres:// URL as --store names a PostgreSQL
// database, for every command; db migrate makes and reports its schema.
func TestPostgresStore(t *testing.T) {
	s := &store{t: t, dir: pgtest.URL(t)}
	if got := s.ok("db", "migrate"); got != "schema version 1\n" {
		t.Errorf("db migrate = %q", got)
	}
	if got := s.ok("db", "migrate"); got != "schema version 1\n" {
		t.Errorf("db migrate again = %q", got)
	}
	if got := s.ok("new", "demo"); got != "demo\n" {
		t.Errorf("new = %q", got)
	}
	s.ok("append", "demo", "hello from postgres")
	s.ok("append", "--role", "assistant", "demo", "hi back")
	s.ok("fork", "demo", "try")
	if got := s.ok("show", "demo"); !strings.Contains(got, "hello from postgres") || !strings.Contains(got, "hi back") {
		t.Errorf("show = %q", got)
	}
	if got := s.ok("ls"); !strings.Contains(got, "demo  2 ") {
		t.Errorf("ls = %q, want demo with 2 messages", got)
	}
	if got := s.ok("branches", "demo"); !strings.Contains(got, "try") {
		t.Errorf("branches = %q", got)
	}
	// $SESSFS_STORE names it as --store does.
	last := exec.Command(bin, "last")
	last.Env = append(os.Environ(), "SESSFS_STORE="+s.dir)
	if out, err := last.Output(); err != nil || string(out) != "demo\n" {
		t.Errorf("SESSFS_STORE=URL sessfs last = %q, %v", out, err)
	}
}

// TestDBMigrateFolder: db migrate is for a database; a folder is refused.
func TestDBMigrateFolder(t *testing.T) {
	newStore(t).fails(exitFail, "not a PostgreSQL database", "", "db", "migrate")
}
