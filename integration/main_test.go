// Package integration mounts a real kernel FUSE filesystem of a sessfs store
// and drives it with the programs users run: ls, cat, grep, find, wc, stat,
// tail, python3, mkdir, mv, rmdir, rm and shell redirections. Each test
// asserts a rule of the contract (DESIGN.md, "The view"), so a failure here
// is a bug in sessfs, not in the test.
//
// The tests need /dev/fuse and root. Without them they skip, unless
// SESSFS_REQUIRE_FUSE=1 (set by CI), which makes that a failure: the mount
// tests can never silently not run there.
package integration

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/sessfs/sessfs/backing/pgstore/pgtest"
	"github.com/sessfs/sessfs/integration/mounttest"
)

var (
	// sessfsBin is the command line, built once: the tests that need a
	// second process (another mount, the CLI writing while mounted) run it
	// as users do.
	sessfsBin string
	// buildErr is why sessfsBin could not be built; only the tests that
	// need the binary fail on it, the in-process mount tests still run.
	buildErr error
	// moduleRoot is the folder of go.mod.
	moduleRoot string
	// mountRoot holds every mount point of this run, so that TestMain can
	// prove at the end that no mount was left behind.
	mountRoot string
)

func TestMain(m *testing.M) {
	code := func() int {
		clearDeadRuns()
		var err error
		mountRoot, err = os.MkdirTemp("", runPrefix)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		pidFile := filepath.Join(mountRoot, runPIDFile)
		if err := os.WriteFile(pidFile, []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.Remove(mountRoot) // only if empty: never recurse into a mount
		defer os.Remove(pidFile)
		buildCLI()
		// pgtest.Main stops the PostgreSQL server pgtest.URL started for
		// the tests that mount a database (pg_*_test.go), if one did.
		code := pgtest.Main(m)
		if left := leftMounts(); len(left) > 0 {
			// A mount left behind would hang or confuse whatever runs next
			// on this machine: fail the run, then clear it.
			fmt.Fprintf(os.Stderr, "FAIL: mounts left behind: %s\n", strings.Join(left, ", "))
			for _, mnt := range left {
				mounttest.ForceUnmount(mnt)
			}
			code = 1
		}
		if sessfsBin != "" && os.Getenv("SESSFS_BIN") == "" {
			os.RemoveAll(filepath.Dir(sessfsBin))
		}
		return code
	}()
	os.Exit(code)
}

// runPrefix names each run's folder of mount points, in the temporary
// folder; runPIDFile in it is the run's process id.
const (
	runPrefix  = "sessfs-integration-"
	runPIDFile = "run.pid"
)

// clearDeadRuns clears what killed runs of these tests left: a run
// killed before its cleanups (a timeout, kill -9) leaves its daemons'
// mounts dead ("transport endpoint is not connected") until someone
// unmounts them. A run's folder whose process is gone is cleared, its
// dead mounts detached and its empty folders removed; a run still going
// (another suite on this machine) is left alone, its mounts too.
func clearDeadRuns() {
	roots, _ := filepath.Glob(filepath.Join(os.TempDir(), runPrefix+"[0-9]*"))
	for _, root := range roots {
		if pid, err := os.ReadFile(filepath.Join(root, runPIDFile)); err == nil {
			if n, err := strconv.Atoi(string(pid)); err == nil && syscall.Kill(n, 0) == nil {
				continue // alive
			}
		}
		for _, mnt := range mounttest.MountPoints() {
			// Dead mounts only: a run of a version without run.pid may
			// still be going.
			if _, err := os.Stat(mnt); filepath.Dir(mnt) == root && errors.Is(err, syscall.ENOTCONN) {
				mounttest.ForceUnmount(mnt)
			}
		}
		os.Remove(filepath.Join(root, runPIDFile))
		dirs, _ := filepath.Glob(filepath.Join(root, "*"))
		for _, d := range dirs {
			os.Remove(d) // empty mount points only: never recurse into a mount
		}
		os.Remove(root)
	}
}

// buildCLI builds cmd/sessfs from the module this package belongs to.
// SESSFS_BIN names a prebuilt binary to use instead (to test a release
// build, or while cmd/ does not build).
func buildCLI() {
	out, err := exec.Command(goTool(), "env", "GOMOD").Output()
	if err != nil || strings.TrimSpace(string(out)) == "" || strings.TrimSpace(string(out)) == os.DevNull {
		buildErr = fmt.Errorf("go env GOMOD: %v (%s)", err, out)
		return
	}
	moduleRoot = filepath.Dir(strings.TrimSpace(string(out)))
	if bin := os.Getenv("SESSFS_BIN"); bin != "" {
		if abs, err := filepath.Abs(bin); err != nil {
			buildErr = err
		} else {
			sessfsBin = abs
		}
		return
	}
	dir, err := os.MkdirTemp("", "sessfs-integration-bin-")
	if err != nil {
		buildErr = err
		return
	}
	bin := filepath.Join(dir, "sessfs")
	cmd := exec.Command(goTool(), "build", "-o", bin, "./cmd/sessfs")
	cmd.Dir = moduleRoot
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		buildErr = fmt.Errorf("go build ./cmd/sessfs: %v\n%s", err, stderr.String())
		os.RemoveAll(dir)
		return
	}
	sessfsBin = bin
}

// goTool is the go command: the one on PATH, else the one of this toolchain.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// TestGOMAXPROCS1 runs the tests most sensitive to scheduling (appends,
// concurrent writers, freshness, forks) once more, in a child go test with
// GOMAXPROCS=1 (without the race detector): the FUSE server, the kernel
// requests it answers and, for in-process mounts, the test itself then
// share one P, one goroutine running Go code at a time, which shakes out
// deadlocks and ordering assumptions the default run hides. It is the only
// run with one P: make test runs the package with the default. The child
// proves it had one P (its own TestGOMAXPROCS1 skips, saying so) and that
// the tests ran (each one named below passed, none skipped).
func TestGOMAXPROCS1(t *testing.T) {
	if runtime.GOMAXPROCS(0) == 1 {
		t.Skip("this run already has GOMAXPROCS=1")
	}
	if testing.Short() {
		t.Skip("-short: the GOMAXPROCS=1 rerun is the long part")
	}
	requireFUSE(t)
	if moduleRoot == "" {
		t.Fatalf("module root unknown: %v", buildErr)
	}
	cmd := exec.Command(goTool(), "test", "-count=1", "-v",
		"-run", "^(TestGOMAXPROCS1|TestAppend.*|TestConcurrentAppenders|TestFresh.*|TestFork.*)$", "./integration/")
	cmd.Dir = moduleRoot
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("GOMAXPROCS=1 go test: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "this run already has GOMAXPROCS=1") {
		t.Errorf("the child run did not have GOMAXPROCS=1:\n%s", out)
	}
	passed := 0
	for _, l := range strings.Split(string(out), "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "--- PASS: "):
			passed++
		case strings.HasPrefix(l, "--- SKIP: ") && !strings.HasPrefix(l, "--- SKIP: TestGOMAXPROCS1 "):
			t.Errorf("GOMAXPROCS=1: %s", l)
		}
	}
	for _, name := range []string{"TestConcurrentAppenders", "TestAppendEchoAppend", "TestFreshAfterMountAppend", "TestForkMkdirBranch"} {
		if !strings.Contains(string(out), "--- PASS: "+name+" ") {
			t.Errorf("GOMAXPROCS=1: %s did not pass:\n%s", name, out)
		}
	}
	t.Logf("GOMAXPROCS=1: %d tests passed", passed)
}
