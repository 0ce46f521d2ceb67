package agents

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// DefaultPrefix is where .ci/agents installs the CLIs (npm --prefix).
const DefaultPrefix = "/opt/sessfs-agents"

// RunTimeout bounds one run of a CLI: a stand-in that does not answer as
// the CLI expects makes it retry or wait, and that must fail the test,
// not hang the suite.
const RunTimeout = 120 * time.Second

// Prefix is the npm prefix the CLIs are looked for under first:
// $SESSFS_AGENTS, else DefaultPrefix.
func Prefix() string {
	if p := os.Getenv("SESSFS_AGENTS"); p != "" {
		return p
	}
	return DefaultPrefix
}

// Find returns the path of a CLI (claude, codex, gemini): under
// Prefix()/bin, else on PATH. A missing CLI skips the test, or fails it
// when SESSFS_REQUIRE_AGENTS=1 (CI installs them all, so there a test
// can never silently not run).
func Find(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(Prefix(), "bin", name)
	if _, err := os.Stat(p); err == nil {
		return p
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	why := fmt.Sprintf("%s is not installed in %s/bin nor on PATH (install: .ci/agents, see README)", name, Prefix())
	if os.Getenv("SESSFS_REQUIRE_AGENTS") == "1" {
		t.Fatalf("%s, and SESSFS_REQUIRE_AGENTS=1", why)
	}
	t.Skipf("%s (set SESSFS_REQUIRE_AGENTS=1 to fail instead)", why)
	return ""
}

// Runner runs one CLI hermetically: its own home, a project folder to
// work in, its API pointed at a stand-in, proxies pointed at a closed
// port so that a request that would leave the machine fails at once.
type Runner struct {
	Bin  string   // the CLI
	Home string   // its HOME, a fresh temporary folder
	Dir  string   // its working directory, the project (ProjectFiles)
	Env  []string // the environment beyond the common one (API, keys)
}

// ProjectFiles are the files of the project folder every CLI runs in;
// the tool call lists them.
var ProjectFiles = map[string]string{
	"calc.py":   "def add(a, b):\n    return a + b\n",
	"README.md": "# calc\n",
}

// newRunner makes the home and project folders for CLI name.
func newRunner(t testing.TB, name string) *Runner {
	t.Helper()
	// The project folder is named "project" (not t.TempDir's 001): Gemini
	// CLI names its folder under ~/.gemini/tmp after it.
	r := &Runner{Bin: Find(t, name), Home: t.TempDir(), Dir: filepath.Join(t.TempDir(), "project")}
	if err := os.Mkdir(r.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range ProjectFiles {
		if err := os.WriteFile(filepath.Join(r.Dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// environ is the whole environment of a run: nothing of the test's own
// (no real keys, no real config), PATH to the CLI and node.
func (r *Runner) environ() []string {
	path := []string{filepath.Dir(r.Bin)}
	if node, err := exec.LookPath("node"); err == nil && filepath.Dir(node) != path[0] {
		path = append(path, filepath.Dir(node))
	}
	path = append(path, "/usr/local/bin", "/usr/bin", "/bin")
	env := []string{
		"PATH=" + strings.Join(path, ":"),
		"HOME=" + r.Home,
		"LANG=C.UTF-8",
		"TERM=dumb",
		"NO_COLOR=1",
		"HTTP_PROXY=http://127.0.0.1:9", "HTTPS_PROXY=http://127.0.0.1:9",
		"http_proxy=http://127.0.0.1:9", "https_proxy=http://127.0.0.1:9",
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
	}
	return append(env, r.Env...)
}

// Result is what one run did.
type Result struct {
	Args           []string
	Code           int
	Stdout, Stderr string
	Took           time.Duration
}

func (r Result) String() string {
	return fmt.Sprintf("%q: exit %d in %v\nstdout:\n%s\nstderr:\n%s", r.Args, r.Code, r.Took.Round(time.Millisecond), r.Stdout, r.Stderr)
}

// Run runs the CLI with args in the project folder and returns what it
// did, however it exited; only a timeout or a failure to start fails the
// test here.
func (r *Runner) Run(t testing.TB, args ...string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), RunTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.Bin, args...)
	cmd.Dir = r.Dir
	cmd.Env = r.environ()
	cmd.Stdin = strings.NewReader("")
	// A CLI runs children (node workers, the shell of a tool call): at
	// the timeout kill its whole process group, not the CLI alone, and
	// do not wait for a child's hold on the output pipes forever.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	begin := time.Now()
	err := cmd.Run()
	res := Result{Args: append([]string{filepath.Base(r.Bin)}, args...), Stdout: out.String(), Stderr: errb.String(), Took: time.Since(begin)}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("did not finish in %v: %v", RunTimeout, res)
	case errors.As(err, &ee):
		res.Code = ee.ExitCode()
	case err != nil:
		t.Fatalf("run %q: %v", res.Args, err)
	}
	t.Logf("%s: exit %d in %v", strings.Join(res.Args[:min(2, len(res.Args))], " "), res.Code, res.Took.Round(time.Millisecond))
	return res
}

// MustRun is Run for a run that must exit 0.
func (r *Runner) MustRun(t testing.TB, args ...string) Result {
	t.Helper()
	res := r.Run(t, args...)
	if res.Code != 0 {
		t.Fatalf("want exit 0: %v", res)
	}
	return res
}
