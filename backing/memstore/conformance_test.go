package memstore_test

import (
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/memstore"
	"github.com/sessfs/sessfs/backing/storetest"
)

// TestConformance runs the contract's conformance suite against the
// memory engine. A store in memory has no other process to open it: the
// second handle the feed's tests ask for is the store itself.
func TestConformance(t *testing.T) {
	storetest.Run(t,
		func(t *testing.T) backing.Store { return memstore.New(memstore.Options{}) },
		func(t *testing.T, st backing.Store) backing.Store { return st })
}
