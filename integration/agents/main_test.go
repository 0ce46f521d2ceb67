package agents_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// sessfsBin is the sessfs command, built once by TestMain for the
// round-trip and resume tests: they run it as a user does, on the files
// the real agents wrote. buildErr is why it could not be built; only the tests
// that need it fail on it, the smoke tests still run.
var sessfsBin string
var buildErr error

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sessfs-agents-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sessfsBin, buildErr = buildSessfs(dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildSessfs builds cmd/sessfs of this module into dir.
func buildSessfs(dir string) (string, error) {
	bin := filepath.Join(dir, "sessfs")
	cmd := exec.Command(goTool(), "build", "-o", bin, "../../cmd/sessfs")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build ../../cmd/sessfs: %v\n%s", err, stderr.String())
	}
	return bin, nil
}

// goTool is the go command: the one on PATH, else this toolchain's.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}
