package pgtest

import (
	"os"
	"testing"
)

// Server is a throwaway PostgreSQL server of one test's own, for tests
// that stop and start it (a restart under load, a database gone while a
// mount serves): what they do to it touches no other test.
type Server struct {
	s *server
}

// Own starts a server for t alone, removed when t ends. It skips (or
// fails, with SESSFS_REQUIRE_POSTGRES=1) when no PostgreSQL can be
// started here, whatever SESSFS_TEST_POSTGRES says: a server of the
// environment's is not the test's to stop.
func Own(t testing.TB) *Server {
	t.Helper()
	s, err := startServer()
	if err != nil {
		if os.Getenv("SESSFS_REQUIRE_POSTGRES") == "1" {
			t.Fatalf("PostgreSQL is required (SESSFS_REQUIRE_POSTGRES=1): %v", err)
		}
		t.Skipf("skipped, no PostgreSQL to start: %v", err)
	}
	t.Cleanup(func() { s.stop() })
	return &Server{s: s}
}

// URL is the URL of the server's database postgres.
func (s *Server) URL() string { return s.s.url("postgres") }

// Stop stops the server, its connections cut, keeping its data.
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	if err := s.s.halt(); err != nil {
		t.Fatal(err)
	}
}

// Start starts the stopped server again.
func (s *Server) Start(t testing.TB) {
	t.Helper()
	if err := s.s.start(); err != nil {
		t.Fatal(err)
	}
}
