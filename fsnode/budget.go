package fsnode

import (
	"fmt"
	"sync"
	"syscall"
)

// DefaultMaxBuffered is how many bytes the open handles of one mount may
// hold in memory together by default (Options.MaxBuffered): the text and
// unterminated lines written to append, the edits of meta.json, and
// editors' temporaries.
const DefaultMaxBuffered = 256 << 20

// errNoRoom is a write that would take the mount's handles past their
// budget: ENOSPC, the mount being out of room for now, not EFBIG, which
// says the message itself is too large.
var errNoRoom = fmt.Errorf("the mount's open files hold their limit of buffered bytes: %w", syscall.ENOSPC)

// budget bounds the bytes the open handles and editors' temporaries of
// a mount hold, by capacity.
type budget struct {
	mu   sync.Mutex
	used int64
	max  int64
}

// take charges n bytes, if they fit.
func (b *budget) take(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.max {
		return false
	}
	b.used += n
	return true
}

func (b *budget) give(n int64) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
}

// inUse is how many bytes are charged now.
func (b *budget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}
