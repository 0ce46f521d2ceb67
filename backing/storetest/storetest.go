package storetest

import (
	"maps"
	"slices"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// Opener returns a fresh, empty store, cleaned up when t ends.
type Opener func(t *testing.T) backing.Store

// Again returns another handle on st's store, as another process (the
// command line, a second mount) would open it: the change feed of st must
// report what is changed through it.
type Again func(t *testing.T, st backing.Store) backing.Store

// area is one part of the contract, a subtest of Run.
type area struct {
	name string
	run  func(t *testing.T, open Opener)
}

// areas are the parts of the contract, in the order of contract.go.
var areas = []area{
	{"Store", testStore},
	{"Sessions", testSessions},
	{"Namespace", testNamespace},
	{"Trash", testTrash},
	{"Meta", testMeta},
	{"Times", testTimes},
	{"Appends", testAppends},
	{"ExactlyOnce", testExactlyOnce},
	{"Concurrency", testConcurrency},
	{"Branches", testBranches},
	{"Forks", testForks},
	{"Views", testViews},
	{"Turns", testTurns},
	{"Checker", testChecker},
	{"Sweeper", testSweeper},
	{"Receiver", testReceiver},
}

// Run runs the conformance suite against the engine open makes: one
// subtest per area of the contract, each made of parallel subtests with a
// store of their own, and the change feed's (feed.go), which again lets
// write as another writer.
func Run(t *testing.T, open Opener, again Again) {
	t.Helper()
	for _, a := range areas {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			a.run(t, open)
		})
	}
	t.Run("Feed", func(t *testing.T) {
		t.Parallel()
		testFeed(t, open, again)
	})
	t.Run("Finder", func(t *testing.T) {
		t.Parallel()
		testFinder(t, open, again)
	})
}

// cases runs each case, in the order of its name, as a parallel subtest
// with a store of its own.
func cases(t *testing.T, open Opener, cs map[string]func(t *testing.T, st backing.Store)) {
	t.Helper()
	for _, name := range slices.Sorted(maps.Keys(cs)) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cs[name](t, open(t))
		})
	}
}
