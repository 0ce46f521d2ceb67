package filestore

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// cutTornTail makes a branch's log end at a line boundary and returns its
// size. A last line without a newline is what a crash mid-append leaves:
// readers already ignore it; here, under the session lock, its bytes move to
// the quarantine folder before the log is cut, so the next append does not
// glue a message onto it and no byte is lost. The caller holds the lock.
func (s *Session) cutTornTail(branchID string) (int64, error) {
	f, size, err := s.openLog(branchID)
	if err != nil {
		return 0, err
	}
	f.Close()
	return size, nil
}

// openLog opens a branch's log for appending, its torn tail cut (see
// cutTornTail), and returns it with its size. The caller holds the lock.
func (s *Session) openLog(branchID string) (*os.File, int64, error) {
	f, err := openFile(s.logFile(branchID), os.O_RDWR|os.O_CREATE|os.O_APPEND, fileMode)
	if err != nil {
		return nil, 0, err
	}
	size, err := s.cutTail(f, branchID)
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, size, nil
}

func (s *Session) cutTail(f *os.File, branchID string) (int64, error) {
	lf, err := newLogFile(f, &s.logIndex(branchID).sealed)
	if err != nil {
		return 0, err
	}
	size, torn, err := tornTail(lf)
	if err != nil || torn == nil {
		return size, err
	}
	if err := s.quarantine(branchID+".jsonl", "torn", torn); err != nil {
		return 0, err
	}
	keep := size - int64(len(torn))
	if err := f.Truncate(keep); err != nil {
		return 0, err
	}
	if err := f.Sync(); err != nil {
		return 0, err
	}
	return keep, nil
}

// tornTail returns the log's size and the bytes after its last newline.
// Only the tail is read: the cost does not grow with the log.
func tornTail(f *logFile) (size int64, torn []byte, err error) {
	size = f.Size()
	if size == 0 {
		return 0, nil, nil
	}
	// The common case, a log ending in a newline, costs a one-byte read.
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, size-1); err != nil {
		return size, nil, err
	}
	if last[0] == '\n' {
		return size, nil, nil
	}
	const step = 64 << 10
	end := size
	for end > 0 {
		start := max(0, end-step)
		buf := make([]byte, end-start)
		if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
			return size, nil, err
		}
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
			if start+int64(i)+1 == size {
				return size, nil, nil
			}
			end = start + int64(i) + 1
			break
		}
		end = start
	}
	if end == size {
		return size, nil, nil
	}
	torn = make([]byte, size-end)
	if _, err := f.ReadAt(torn, end); err != nil && err != io.EOF {
		return size, nil, err
	}
	return size, torn, nil
}

// quarantine keeps bytes a repair removes, in a file named for where they
// came from and why, so a human can always look at what was cut.
func (s *Session) quarantine(from, why string, data []byte) error {
	dir := s.path("quarantine")
	if err := mkdirExisting(dir); err != nil {
		return err
	}
	name := fmt.Sprintf("%s.%s.%s", from, time.Now().UTC().Format("20060102T150405.000000000Z"), why)
	return createExclusive(filepath.Join(dir, name), data)
}

// quarantineFile moves a whole file into the quarantine folder.
func (s *Session) quarantineFile(p, why string) error {
	data, err := readFile(p)
	if err != nil {
		return err
	}
	if err := s.quarantine(filepath.Base(p), why, data); err != nil {
		return err
	}
	return remove(p)
}

// blankLine repairs a corrupt line in the middle of a log: its bytes go to
// quarantine, then are overwritten in place with spaces. Blank lines are
// skipped by readers, and no offset moves, so forks that point into the log
// stay right. The caller holds the session lock.
// A line in the sealed part of a log is blanked in a new sealed file, its
// frame made anew (writeSealed).
func (s *Session) blankLine(branchID string, off int64) error {
	f, err := openFile(s.logFile(branchID), os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	lf, err := newLogFile(f, &s.logIndex(branchID).sealed)
	if err != nil {
		return err
	}
	if lf.zerr != nil {
		return lf.zerr
	}
	var line []byte
	buf := make([]byte, 64<<10)
	for pos := off; ; {
		n, err := lf.ReadAt(buf, pos)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			line = append(line, buf[:i]...)
			break
		}
		line = append(line, buf[:n]...)
		pos += int64(n)
		if err != nil {
			return fmt.Errorf("line at %d has no end: %w", off, err)
		}
	}
	if err := s.quarantine(fmt.Sprintf("%s.jsonl.at-%d", branchID, off), "corrupt", line); err != nil {
		return err
	}
	if off < lf.sealed() {
		if i := lf.z.frameAt(off); off+int64(len(line)) > lf.z.frameEnd(i) {
			return fmt.Errorf("line at %d crosses frames of %s", off, lf.z.path)
		}
		return s.writeSealed(s.logFile(branchID), lf, lf.z, lf.z.size, &lineEdit{off: off, n: len(line)})
	}
	if _, err := f.WriteAt(bytes.Repeat([]byte{' '}, len(line)), off); err != nil {
		return err
	}
	return f.Sync()
}
