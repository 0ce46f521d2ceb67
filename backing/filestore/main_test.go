package filestore_test

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/gofrs/flock"
	"github.com/sessfs/sessfs/backing/filestore"
)

// The test binary doubles as a helper program, so that concurrency tests can
// use real separate processes (separate file descriptors, separate flocks,
// separate group-commit queues) without building anything else. The parent
// test re-executes os.Args[0] with one of these variables set.
const (
	// envAppender selects the appender mode; its value is unused.
	envAppender = "SESSFS_TEST_APPENDER"
	envStore    = "SESSFS_TEST_STORE"   // store root
	envSession  = "SESSFS_TEST_SESSION" // session name
	envWriter   = "SESSFS_TEST_WRITER"  // writer id, an integer
	envCount    = "SESSFS_TEST_COUNT"   // number of messages to append
	envIDs      = "SESSFS_TEST_IDS"     // set: each message carries an id of its own

	// envLocker selects the lock-holder mode: its value is the path of a
	// lock file to flock before printing lockedLine and sleeping.
	envLocker  = "SESSFS_TEST_LOCKER"
	lockedLine = "locked"
)

func TestMain(m *testing.M) {
	switch {
	case os.Getenv(envAppender) != "":
		exitWith(childAppend())
	case os.Getenv(envLocker) != "":
		exitWith(childHoldLock(os.Getenv(envLocker)))
	}
	os.Exit(m.Run())
}

func exitWith(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// childAppend appends count messages to a session, one Append call each,
// as writer id: {"role":"user","content":"w<id>-<seq>","writer":<id>,"seq":<seq>},
// with "id":"w<id>-<seq>" in front when envIDs is set.
func childAppend() error {
	root, name := os.Getenv(envStore), os.Getenv(envSession)
	id, err := strconv.Atoi(os.Getenv(envWriter))
	if err != nil {
		return fmt.Errorf("%s: %v", envWriter, err)
	}
	count, err := strconv.Atoi(os.Getenv(envCount))
	if err != nil {
		return fmt.Errorf("%s: %v", envCount, err)
	}
	st, err := filestore.Open(root, filestore.Options{})
	if err != nil {
		return err
	}
	s, err := st.Session(name)
	if err != nil {
		return err
	}
	// Start barrier: the parent holds our stdin open until every child is
	// running, so the appends really overlap instead of running one process
	// after the other. With no stdin (/dev/null) this returns at once.
	if _, err := io.Copy(io.Discard, os.Stdin); err != nil {
		return fmt.Errorf("wait for start: %v", err)
	}
	withIDs := os.Getenv(envIDs) != ""
	for seq := range count {
		m := appenderMessage(id, seq)
		if withIDs {
			m = fmt.Appendf(nil, `{"id":"w%d-%d",%s`, id, seq, m[1:])
		}
		if err := s.AppendID("", [][]byte{m}); err != nil {
			return fmt.Errorf("writer %d, message %d: %w", id, seq, err)
		}
	}
	return nil
}

// appenderMessage is the message writer id appends as its seq-th.
func appenderMessage(id, seq int) []byte {
	return fmt.Appendf(nil, `{"role":"user","content":"w%d-%d","writer":%d,"seq":%d}`, id, seq, id, seq)
}

// childHoldLock takes an exclusive flock on path, tells the parent so on
// stdout and sleeps until it is killed. The sleep is bounded so that a
// parent that died without killing us leaves no process behind for long.
func childHoldLock(path string) error {
	fl := flock.New(path, flock.SetPermissions(0o600))
	if err := fl.Lock(); err != nil {
		return err
	}
	fmt.Println(lockedLine)
	time.Sleep(2 * time.Minute)
	return fmt.Errorf("lock holder was not killed")
}
