package pgtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestReapStale: a server whose test process died without stopping it (a
// panic skips Main's stop) is stopped and removed by the next process
// that starts one.
func TestReapStale(t *testing.T) {
	s, err := startServer()
	if err != nil {
		t.Skipf("no PostgreSQL to start: %v", err)
	}
	defer s.stop()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	owner := filepath.Join(s.dir, ownerFile)
	if err := os.WriteFile(owner, []byte(strconv.Itoa(gone.Process.Pid)), 0o644); err != nil {
		t.Fatal(err)
	}
	reapStale(s.bin)
	if _, err := os.Stat(s.dir); !os.IsNotExist(err) {
		t.Errorf("the server of a process that is gone is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(s.dir, "data", "postmaster.pid")); !os.IsNotExist(err) {
		t.Errorf("its postmaster.pid is still there: %v", err)
	}

	// One whose process lives is left alone.
	live, err := startServer()
	if err != nil {
		t.Fatal(err)
	}
	defer live.stop()
	reapStale(live.bin)
	if _, err := os.Stat(filepath.Join(live.dir, "data", "postmaster.pid")); err != nil {
		t.Errorf("a live process's server was reaped: %v", err)
	}
}
