package filestore

import (
	"bytes"
	"errors"
	"io"
	"os"
	"sync"
	"syscall"
)

// logFile reads a branch's log as its bytes were appended, sealed or not
// (sealed.go): [0, S) from the sealed file, the rest from the plain log,
// whose blocks before S may have been freed (punched: they read as
// zeros). Every read of a log's bytes goes through one; appends go to the
// plain log alone.
//
// Sealing renames the sealed file in before it punches the plain log, so
// a reader finds the bytes in one or the other whatever point a seal has
// reached. One that looked for the sealed file before a seal (in another
// process) renamed it in, and reads the plain log after it punched,
// reads zeros: a log line never holds a zero byte (JSON escapes control
// characters), so a read that meets one looks for the sealed file again
// and reads anew.
type logFile struct {
	f    *os.File // the plain log
	size int64    // its size when opened
	ino  uint64
	src  *sealedSource
	z    *sealedLog // nil: nothing sealed
	zerr error      // the sealed file is there and cannot be used
}

// sealedSource keeps a log's sealed file open between reads (its frames
// last decoded are in frameCache); it opens it again when it was
// replaced.
type sealedSource struct {
	path string

	mu sync.Mutex
	z  *sealedLog
}

// get is the log's sealed file as it is now: nil, nil when there is none.
// A file replaced since is not closed: a read may still use it, and the
// os.File closes itself when no longer referenced.
func (s *sealedSource) get() (*sealedLog, error) {
	fi, err := stat(s.path)
	if errors.Is(err, os.ErrNotExist) {
		s.mu.Lock()
		s.z = nil
		s.mu.Unlock()
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	ino := fi.Sys().(*syscall.Stat_t).Ino
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.z != nil && s.z.ino == ino && s.z.fsize == fi.Size() {
		return s.z, nil
	}
	z, err := openSealed(s.path)
	if err != nil {
		s.z = nil
		return nil, err
	}
	s.z = z
	return z, nil
}

// openLogFile opens the log at path for reading with the sealed file src
// keeps; os.ErrNotExist when the plain log is missing.
func openLogFile(path string, src *sealedSource) (*logFile, error) {
	f, err := openFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	l, err := newLogFile(f, src)
	if err != nil {
		f.Close()
		return nil, err
	}
	return l, nil
}

// newLogFile reads the plain log f (which the caller closes, with Close)
// and the sealed file src keeps.
func newLogFile(f *os.File, src *sealedSource) (*logFile, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	l := &logFile{f: f, size: fi.Size(), ino: fi.Sys().(*syscall.Stat_t).Ino, src: src}
	l.z, l.zerr = src.get()
	return l, nil
}

// Size is the log's size: the plain log's, sealed or not.
func (l *logFile) Size() int64 { return l.size }

// Close closes the plain log.
func (l *logFile) Close() error { return l.f.Close() }

// sealed is where the sealed part ends: 0 with nothing sealed.
func (l *logFile) sealed() int64 {
	if l.z == nil {
		return 0
	}
	return min(l.z.size, l.size)
}

// ReadAt reads the log's bytes at off, as io.ReaderAt.
func (l *logFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := l.readAt(p, off)
	if errors.Is(err, errSealedReplaced) {
		// The sealed file this reader found was closed (sealed_files.go)
		// and a seal has put another in its place since: read that one.
		if l.z, l.zerr = l.src.get(); l.zerr != nil {
			return 0, l.zerr
		}
		n, err = l.readAt(p, off)
	}
	if err != nil || bytes.IndexByte(p[:n], 0) < 0 {
		return n, err
	}
	// Zeros: a hole sealing punched after this reader looked for the
	// sealed file (again, if seals follow one another), or a sealed file
	// that cannot be read.
	for {
		if l.zerr != nil {
			return 0, l.zerr
		}
		z, zerr := l.src.get()
		if z == l.z && zerr == nil {
			return n, err // zeros in the log itself (a damaged line)
		}
		l.z, l.zerr = z, zerr
		if zerr != nil {
			return 0, zerr
		}
		n, err = l.readAt(p, off)
		if err != nil || bytes.IndexByte(p[:n], 0) < 0 {
			return n, err
		}
	}
}

func (l *logFile) readAt(p []byte, off int64) (int, error) {
	n := 0
	if s := l.sealed(); off < s {
		n = int(min(int64(len(p)), s-off))
		if err := l.z.readAt(p[:n], off); err != nil {
			return 0, err
		}
	}
	if n == len(p) {
		return n, nil
	}
	m, err := l.f.ReadAt(p[n:], off+int64(n))
	if err == io.EOF && n+m == len(p) {
		err = nil
	}
	return n + m, err
}

var _ io.ReaderAt = (*logFile)(nil)
