package pgtest

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// server is a throwaway PostgreSQL server in a folder of its own.
type server struct {
	dir  string // the folder: data/, the log and the socket
	bin  string // where initdb and pg_ctl are
	cred *syscall.Credential
	opts string // the server's options (pg_ctl -o)
}

// findBin finds the folder of initdb and pg_ctl: on the PATH, else the
// newest of Debian's /usr/lib/postgresql/*/bin.
func findBin() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		if _, err := exec.LookPath("pg_ctl"); err == nil {
			return filepath.Dir(p), nil
		}
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	slices.SortFunc(found, func(a, b string) int { return version(b) - version(a) })
	for _, p := range found {
		if _, err := os.Stat(filepath.Join(filepath.Dir(p), "pg_ctl")); err == nil {
			return filepath.Dir(p), nil
		}
	}
	return "", errors.New("no PostgreSQL found: initdb is neither on the PATH nor in /usr/lib/postgresql/*/bin " +
		"(install postgresql, or set SESSFS_TEST_POSTGRES to a server's URL)")
}

// version is the major version in a path like /usr/lib/postgresql/15/bin/initdb.
func version(path string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(path))))
	return v
}

// startServer makes a test cluster (startCluster, durability off).
func startServer() (*server, error) { return startCluster(false) }

// startCluster makes a cluster in a new temporary folder and starts it,
// listening on a unix socket in that folder only. durable keeps fsync
// and synchronous commit on, as on a real server: a benchmark of durable
// appends measures them; the tests do not.
func startCluster(durable bool) (*server, error) {
	bin, err := findBin()
	if err != nil {
		return nil, err
	}
	reapStale(bin)
	dir, err := os.MkdirTemp("", dirPrefix)
	if err != nil {
		return nil, err
	}
	// Whose it is: a test process that died before it could stop its
	// server (a panic) leaves it to the next one to stop (reapStale).
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s := &server{dir: dir, bin: bin}
	if os.Geteuid() == 0 {
		// initdb refuses to run as root: the cluster is nobody's.
		u, err := user.Lookup("nobody")
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("running as root, and no user nobody to run PostgreSQL as: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		s.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	data := filepath.Join(dir, "data")
	if err := s.run("initdb", "-D", data, "-U", "postgres", "--auth=trust", "--encoding=UTF8",
		"--locale=C", "--no-sync"); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// Durability is not what these tests test: fsync off makes a
	// CREATE DATABASE per test cheap.
	s.opts = fmt.Sprintf("-k %s -c listen_addresses='' -c max_connections=300", dir)
	if !durable {
		s.opts += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
	}
	if err := s.start(); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%w\n%s", err, log)
	}
	return s, nil
}

// start starts the server and waits until it takes connections.
func (s *server) start() error {
	return s.run("pg_ctl", "-D", filepath.Join(s.dir, "data"), "-l", filepath.Join(s.dir, "log"),
		"-w", "-t", "60", "-o", s.opts, "start")
}

// halt stops the server, its connections cut (pg_ctl -m fast), and keeps
// its data.
func (s *server) halt() error {
	return s.run("pg_ctl", "-D", filepath.Join(s.dir, "data"), "-m", "fast", "-w", "stop")
}

// run runs one of the server's programs, as the server's user.
func (s *server) run(name string, args ...string) error {
	cmd := exec.Command(filepath.Join(s.bin, name), args...)
	cmd.Dir = s.dir
	if s.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %w\n%s", name, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// url is the URL of database db on the server, as its superuser.
func (s *server) url(db string) string {
	u := url.URL{Scheme: "postgres", User: url.User("postgres"), Host: "localhost", Path: "/" + db,
		RawQuery: url.Values{"host": {s.dir}, "sslmode": {"disable"}}.Encode()}
	return u.String()
}

const (
	dirPrefix = "sessfs-pg-"
	ownerFile = "owner" // the pid of the test process the server is for
)

// reapStale stops and removes the servers of test processes that are
// gone: a test binary that panics never runs Main's stop.
func reapStale(bin string) {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), dirPrefix+"*"))
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil {
			continue // not one of ours, or being made right now
		}
		pid, err := strconv.Atoi(string(b))
		if err != nil || pid == os.Getpid() || syscall.Kill(pid, 0) != syscall.ESRCH {
			continue // its process is alive
		}
		s := &server{dir: dir, bin: bin}
		if fi, err := os.Stat(dir); err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid != uint32(os.Geteuid()) {
				s.cred = &syscall.Credential{Uid: st.Uid, Gid: st.Gid}
			}
		}
		s.stop()
	}
}

// stop stops the server at once and removes its folder.
func (s *server) stop() error {
	err := s.run("pg_ctl", "-D", filepath.Join(s.dir, "data"), "-m", "immediate", "-w", "stop")
	if rmErr := os.RemoveAll(s.dir); err == nil {
		err = rmErr
	}
	return err
}
