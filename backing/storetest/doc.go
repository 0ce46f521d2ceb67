// Package storetest is the conformance suite of backing's contract: the
// behaviour every engine (backing/filestore, backing/pgstore, …) must have
// for fsnode and cmd to work on it unchanged, in the spirit of rclone's
// fstest/fstests.
//
// It owns the tests of what backing.Store, backing.Session and
// backing.View promise (their doc comments, the errors of errors.go, the
// rules of DESIGN.md that the store carries: names, exactly-once appends,
// O(1) forks that read their ancestry, the turn rule, visible counts,
// the read-only trash, the change feed) and of the optional interfaces (backing.Checker,
// backing.Sweeper) when an engine has them. It knows nothing of how an
// engine keeps its data: it never names a file, a table or an engine
// package, and it asserts no size or timing.
//
// An engine runs it from a test of its own package:
//
//	func TestConformance(t *testing.T) {
//		open := func(t *testing.T, dir string) backing.Store { … filestore.Open(dir, …) … }
//		storetest.Run(t,
//			func(t *testing.T) backing.Store { return open(t, t.TempDir()) },
//			func(t *testing.T, st backing.Store) backing.Store { return open(t, st.Location()) })
//	}
//
// open must return a fresh, empty store on each call, cleaned up with t;
// the suite calls it once per subtest, from parallel subtests. again opens
// a second handle on a store, as another process would: the change feed
// (feed.go) must report what is written through it within a second. Tests of an
// engine's own format, crash recovery and limits stay in its package.
package storetest
