package filestore

import (
	"container/list"
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
)

// sealedFiles bounds the sealed files a process holds open. A sealed
// log's index stays with its session's handle, and a mount's nodes keep
// the handles of every session the kernel remembers: holding each file
// open too, a mount that had read every session of a big store held a
// descriptor per session, past the process's limit (20,000 here) at
// 10 GB. So only the files read last stay open, maxOpenSealed of them;
// an older one is closed once no read uses it, and opened again by its
// path when it is read next.
var sealedFiles = openSealedFiles{list: list.New(), at: map[*sealedLog]*list.Element{}}

// maxOpenSealed is how many sealed files stay open: enough for the
// reads a mount serves at once, few against any limit on descriptors.
var maxOpenSealed = 64 // a variable for the tests

type openSealedFiles struct {
	mu   sync.Mutex
	list *list.List // of *sealedLog, the one read last first
	at   map[*sealedLog]*list.Element
}

// errSealedReplaced: the sealed file was closed, and its path now names
// another file (a seal wrote a new one) or none.
var errSealedReplaced = errors.New("sealed file replaced")

// touch records z as read now, closing the files read longest ago past
// the bound.
func (c *openSealedFiles) touch(z *sealedLog) {
	var old []*sealedLog
	c.mu.Lock()
	if e, ok := c.at[z]; ok {
		c.list.MoveToFront(e)
	} else {
		c.at[z] = c.list.PushFront(z)
	}
	for c.list.Len() > maxOpenSealed {
		e := c.list.Back()
		c.list.Remove(e)
		v := e.Value.(*sealedLog)
		delete(c.at, v)
		old = append(old, v)
	}
	c.mu.Unlock()
	for _, v := range old {
		v.closeIdle()
	}
}

// forget drops z, closed by its owner.
func (c *openSealedFiles) forget(z *sealedLog) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.at[z]; ok {
		c.list.Remove(e)
		delete(c.at, z)
	}
}

func (c *openSealedFiles) has(z *sealedLog) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.at[z]
	return ok
}

// acquire returns z's file for a read, opening it again if it was
// closed; release must follow.
func (z *sealedLog) acquire() (*os.File, error) {
	z.mu.Lock()
	if z.f == nil {
		f, err := z.reopen()
		if err != nil {
			z.mu.Unlock()
			return nil, err
		}
		z.f = f
	}
	z.uses++
	f := z.f
	z.mu.Unlock()
	sealedFiles.touch(z)
	return f, nil
}

// release ends a read of z's file; one no longer among those kept open
// (touch let it go while it was read) is closed with its last read.
func (z *sealedLog) release() {
	z.mu.Lock()
	z.uses--
	idle := z.uses == 0
	z.mu.Unlock()
	if idle && !sealedFiles.has(z) {
		z.closeIdle()
	}
}

// reopen opens z's path, which must still be the file z indexed.
func (z *sealedLog) reopen() (*os.File, error) {
	f, err := openFile(z.path, os.O_RDONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", z.path, errSealedReplaced)
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && (fi.Sys().(*syscall.Stat_t).Ino != z.ino || fi.Size() != z.fsize) {
		err = fmt.Errorf("%s: %w", z.path, errSealedReplaced)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// closeIdle closes z's file unless a read uses it: that one keeps it,
// and its next acquire counts it again.
func (z *sealedLog) closeIdle() {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.uses == 0 && z.f != nil {
		z.f.Close()
		z.f = nil
	}
}
