package pgstore_test

import (
	"os"
	"testing"

	"github.com/sessfs/sessfs/backing/pgstore/pgtest"
)

// TestMain runs the tests through pgtest, which stops the PostgreSQL
// server it started for them.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
