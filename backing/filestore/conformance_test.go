package filestore_test

import (
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
	"github.com/sessfs/sessfs/backing/storetest"
)

// TestConformance runs the contract's conformance suite against the file
// engine.
func TestConformance(t *testing.T) { runConformance(t) }

// TestConformanceFewHandles runs the suite with the store keeping two
// session handles (handles.go): every contract holds when handles are
// dropped and made again all the time, as in a daemon over a big store.
func TestConformanceFewHandles(t *testing.T) {
	defer filestore.SetMaxHandles(2)()
	runConformance(t)
}

// TestConformanceSealed runs the suite with every append sealing all of
// its log but the last line (seal.go), in frames of a line or two: every
// contract holds whatever part of a log is sealed.
func TestConformanceSealed(t *testing.T) {
	defer filestore.SetSealFrame(64)()
	runConformance(t, filestore.Options{Seal: filestore.SealAfterAppend, SealMin: 1, SealKeep: 1})
}

func runConformance(t *testing.T, o ...filestore.Options) {
	opts := filestore.Options{Sync: filestore.SyncNone, Seal: filestore.SealOff}
	if len(o) > 0 {
		opts = o[0]
		opts.Sync = filestore.SyncNone
	}
	open := func(t *testing.T, dir string) backing.Store {
		st, err := filestore.Open(dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	storetest.Run(t,
		func(t *testing.T) backing.Store { return open(t, t.TempDir()) },
		func(t *testing.T, st backing.Store) backing.Store { return open(t, st.Location()) })
}
