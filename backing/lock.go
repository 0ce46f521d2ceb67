package backing

import (
	"fmt"
	"sync"

	"github.com/gofrs/flock"
)

// fileLock is a lock that holds both across goroutines of this process and
// across processes. flock alone is not enough in-process: a gofrs Flock
// already locked by one goroutine returns at once for a second one.
type fileLock struct {
	mu   sync.Mutex
	path string
}

// lock blocks until the lock is held and returns the function releasing it.
// A process that dies holding the lock releases it: the kernel drops flock
// locks with the last open file.
func (l *fileLock) lock() (unlock func(), err error) {
	l.mu.Lock()
	fl := flock.New(l.path, flock.SetPermissions(fileMode))
	if err := fl.Lock(); err != nil {
		l.mu.Unlock()
		return nil, fmt.Errorf("lock %s: %w", l.path, err)
	}
	return func() {
		fl.Unlock() // also closes the file
		l.mu.Unlock()
	}, nil
}
