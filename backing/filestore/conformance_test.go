package filestore_test

import (
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
	"github.com/sessfs/sessfs/backing/storetest"
)

// TestConformance runs the contract's conformance suite against the file
// engine.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) backing.Store {
		st, err := filestore.Open(t.TempDir(), filestore.Options{Sync: filestore.SyncNone})
		if err != nil {
			t.Fatal(err)
		}
		return st
	})
}
