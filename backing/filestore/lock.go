package filestore

import (
	"fmt"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// fileLock is a lock that holds both across goroutines of this process and
// across processes: a mutex, then flock(2) on a file of the store (opened
// without following a link, so a planted link can neither be locked in
// the store's stead nor create a file elsewhere).
type fileLock struct {
	mu   sync.Mutex
	path string
}

// lock blocks until the lock is held and returns the function releasing it.
// A process that dies holding the lock releases it: the kernel drops flock
// locks with the last open file.
func (l *fileLock) lock() (unlock func(), err error) {
	l.mu.Lock()
	f, err := openFile(l.path, os.O_RDONLY|os.O_CREATE, fileMode)
	if err != nil {
		l.mu.Unlock()
		return nil, fmt.Errorf("lock: %w", err)
	}
	if err := flock(f); err != nil {
		f.Close()
		l.mu.Unlock()
		return nil, fmt.Errorf("lock %s: %w", l.path, err)
	}
	return func() {
		f.Close() // releases the flock
		l.mu.Unlock()
	}, nil
}

func flock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			return err
		}
	}
}
