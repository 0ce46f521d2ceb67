package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/backing/pgstore/pgtest"
)

// bin is the sessfs binary the tests run, built once by TestMain: the CLI
// is tested as users run it, as a process with arguments, stdin and exit
// codes.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sessfs-cli-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "sessfs")
	args := []string{"build", "-o", bin}
	// Under go test -cover, the binary is built with coverage and every
	// run of it writes its counters to covDir: the CLI runs as a process,
	// so the test's own coverage would show almost nothing of it.
	covDir := ""
	if testing.CoverMode() != "" {
		covDir = filepath.Join(dir, "cover")
		if err := os.Mkdir(covDir, 0o700); err == nil {
			args = append(args, "-cover", "-coverpkg=github.com/sessfs/sessfs/...")
			os.Setenv("GOCOVERDIR", covDir) // inherited by every run of bin
		}
	}
	build := exec.Command("go", append(args, ".")...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build sessfs:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := pgtest.Main(m) // m.Run(), then stop the PostgreSQL server it may start
	if covDir != "" {
		reportBinaryCoverage(covDir)
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// reportBinaryCoverage prints the coverage of the sessfs runs the tests
// made, by package (shown with -v), and adds it to the -coverprofile, so
// that go tool cover counts what the CLI runs as a process.
func reportBinaryCoverage(dir string) {
	out, err := exec.Command("go", "tool", "covdata", "percent", "-i", dir).CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "coverage of the sessfs binary: %v\n%s", err, out)
		return
	}
	fmt.Printf("coverage of the sessfs binary as the tests ran it:\n%s", out)
	f := flag.Lookup("test.coverprofile")
	if f == nil || f.Value.String() == "" {
		return
	}
	text := filepath.Join(dir, "binary.out")
	if out, err := exec.Command("go", "tool", "covdata", "textfmt", "-i", dir, "-o", text).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "coverage of the sessfs binary: %v\n%s", err, out)
		return
	}
	data, err := os.ReadFile(text)
	if err != nil {
		return
	}
	_, blocks, _ := bytes.Cut(data, []byte("\n")) // its "mode:" line is the profile's already
	if prof, err := os.OpenFile(f.Value.String(), os.O_APPEND|os.O_WRONLY, 0); err == nil {
		prof.Write(blocks)
		prof.Close()
	}
}

type result struct {
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

// runIn runs sessfs with stdin and args; the store is not added.
func runIn(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	// Never touch the user's real store, whatever a test forgets.
	cmd.Env = append(os.Environ(), "SESSFS_STORE="+filepath.Join(t.TempDir(), "default-store"))
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run sessfs %v: %v", args, err)
	}
	if strings.Contains(r.stderr, "goroutine ") {
		t.Fatalf("sessfs %v printed a Go stack:\n%s", args, r.stderr)
	}
	return r
}

// store is a fresh store for one test, with helpers that run commands on it.
type store struct {
	t   *testing.T
	dir string
}

func newStore(t *testing.T) *store {
	return &store{t: t, dir: filepath.Join(t.TempDir(), "store")}
}

// run runs `sessfs CMD --store DIR ARGS...` with stdin.
func (s *store) runStdin(stdin string, cmd string, args ...string) result {
	s.t.Helper()
	return runIn(s.t, stdin, append([]string{cmd, "--store", s.dir}, args...)...)
}

func (s *store) run(cmd string, args ...string) result {
	s.t.Helper()
	return s.runStdin("", cmd, args...)
}

// ok runs a command that must succeed and returns its stdout.
func (s *store) ok(cmd string, args ...string) string {
	s.t.Helper()
	return s.okStdin("", cmd, args...)
}

func (s *store) okStdin(stdin, cmd string, args ...string) string {
	s.t.Helper()
	r := s.runStdin(stdin, cmd, args...)
	if r.code != 0 {
		s.t.Fatalf("sessfs %s %v: %v", cmd, args, r)
	}
	return r.stdout
}

// fails runs a command that must exit with code and print one error line
// holding want, and nothing on stdout.
func (s *store) fails(code int, want string, stdin, cmd string, args ...string) {
	s.t.Helper()
	r := s.runStdin(stdin, cmd, args...)
	if r.code != code {
		s.t.Fatalf("sessfs %s %v: want exit %d, got %v", cmd, args, code, r)
	}
	if !strings.HasPrefix(r.stderr, "sessfs "+cmd) || !strings.Contains(r.stderr, want) {
		s.t.Fatalf("sessfs %s %v: stderr should start with %q and hold %q: %v", cmd, args, "sessfs "+cmd, want, r)
	}
	if strings.Count(strings.TrimSuffix(r.stderr, "\n"), "\n") > 0 {
		s.t.Fatalf("sessfs %s %v: error should be one line: %q", cmd, args, r.stderr)
	}
}

// sessions is `ls --json` (with --all when all), decoded.
func (s *store) sessions(all bool) []sessionJSON {
	s.t.Helper()
	args := []string{"--json"}
	if all {
		args = append(args, "--all")
	}
	var out []sessionJSON
	if err := json.Unmarshal([]byte(s.ok("ls", args...)), &out); err != nil {
		s.t.Fatalf("ls --json: %v", err)
	}
	return out
}

// session finds one session of `ls --json --all` by name and state.
func (s *store) session(name, state string) (sessionJSON, bool) {
	s.t.Helper()
	for _, x := range s.sessions(true) {
		if x.Name == name && x.State == state {
			return x, true
		}
	}
	return sessionJSON{}, false
}

// messages is `show --format jsonl`, decoded.
func (s *store) messages(args ...string) []map[string]any {
	s.t.Helper()
	out := s.ok("show", append([]string{"--format", "jsonl"}, args...)...)
	var msgs []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			s.t.Fatalf("show --format jsonl: line %q: %v", line, err)
		}
		msgs = append(msgs, m)
	}
	return msgs
}

// contents lists the "content" of each message, for short assertions.
func contents(msgs []map[string]any) []string {
	var out []string
	for _, m := range msgs {
		c, _ := m["content"].(string)
		out = append(out, c)
	}
	return out
}

func lines(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }
