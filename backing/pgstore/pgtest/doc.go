// Package pgtest gives tests a PostgreSQL database of their own: URL(t)
// is a fresh, empty database, dropped when the test ends.
//
// The server is $SESSFS_TEST_POSTGRES (a URL to a server where the tests
// may CREATE DATABASE) when it is set. Otherwise pgtest starts a
// throwaway server of its own, once per test process: initdb into a
// temporary folder and pg_ctl start, listening on a unix socket in that
// folder and nowhere else; as root (CI) it runs them as the user nobody,
// since initdb refuses root. Main stops it when the tests are done. With
// no PostgreSQL to be found the tests skip, or fail when
// SESSFS_REQUIRE_POSTGRES=1 says they must run.
//
// Start and NewDatabase do the same for a program that is not a test
// (the benchmark, integration/bench).
package pgtest
