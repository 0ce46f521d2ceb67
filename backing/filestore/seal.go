package filestore

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Sealing compresses the start of a long log (sealed.go) and frees its
// blocks in the plain log, so a store takes a fraction of its sources'
// size. It runs under the session lock, the lock appends take, so no
// append runs meanwhile, and each of its steps leaves a log that reads
// the same bytes:
//
//  1. the sealed file is written whole under a temporary name and
//     fsynced: the old sealed file's frames copied as they are, then
//     frames of the plain log's complete lines up to the new end S;
//  2. FORMAT says formatSealed (a sessfs that cannot read sealed logs
//     refuses the store from here, instead of reading zeros);
//  3. it is renamed over logs/<branch-id>.jsonl.zst and the folder
//     fsynced: readers take [0, S) from it from here;
//  4. the plain log's [0, S) is punched (fallocate PUNCH_HOLE, its size,
//     inode and mtime kept): readers never read it again, and a crash
//     before the punch leaves blocks the next seal frees.
//
// A temporary file a crash left before step 3 is removed by the next
// seal of the branch (only a seal writes one, under the lock) or by fsck.
// The last SealKeep bytes of a log stay plain, so that what is read most
// (the end) costs no decompression, and a branch is sealed only once
// SealMin bytes more can be: a seal rewrites the sealed file whole (its
// old frames copied raw, at disk speed). A file system that cannot punch
// holes gets no seal at all: it would hold the bytes twice.

// SealMode says when long logs are sealed.
type SealMode int

const (
	// SealOff (the zero value) never seals; sealed logs are read all the
	// same. sessfs seals: its commands after appends, a mount in the
	// background (cmd/sessfs's openStore).
	SealOff SealMode = iota
	// SealBackground seals a branch in a goroutine of its own once an
	// append made it worth it: the append returns first.
	SealBackground
	// SealAfterAppend seals in the append that made it worth it, before
	// it returns: for a command that must leave its store sealed
	// (import), where no reader waits on the append.
	SealAfterAppend
)

const (
	// DefaultSealMin is how many bytes a seal in the background
	// compresses at least, and DefaultSealKeep how many at a log's end
	// it leaves plain: a live session's end, read most, is not sealed.
	DefaultSealMin  = 8 << 20
	DefaultSealKeep = 4 << 20
	// AfterAppendSealMin is SealAfterAppend's least seal: a command that
	// imports history seals all of a log's complete lines (it keeps
	// none plain) once they are that many bytes.
	AfterAppendSealMin = 16 << 10
)

// formatSealed is the store format from which logs may be sealed;
// plainFormat is a store's before its first seal, which an older sessfs
// still reads.
const (
	formatSealed = 3
	plainFormat  = 2
)

// sealStep, set by tests, is called after each step of a seal ("written",
// "renamed", "punched"); an error stops the seal there, as a kill would.
var sealStep func(what string) error

func step(what string) error {
	if sealStep != nil {
		return sealStep(what)
	}
	return nil
}

// sealAfterAppend is called by an append of branchID, under the session
// lock, with the log's end: it seals now, later, or not, by the options.
func (s *Session) sealAfterAppend(branchID string, end int64) {
	o := s.st.opts
	if o.Seal == SealOff || !s.worthSealing(branchID, end) {
		return
	}
	if o.Seal == SealAfterAppend {
		s.sealLocked(branchID) // derived: a failure leaves the log plain
		return
	}
	if !s.sealing.CompareAndSwap(false, true) {
		return // one seal at a time per session: the next append asks again
	}
	s.st.bg.Add(1)
	go func() {
		lowPriority()
		defer s.st.bg.Done()
		defer s.sealing.Store(false)
		s.Seal(branchID)
	}()
}

// worthSealing reports whether SealMin bytes more of a log that ends at
// end could be sealed, by what this process knows of its sealed file.
func (s *Session) worthSealing(branchID string, end int64) bool {
	x := s.logIndex(branchID)
	x.sealed.mu.Lock()
	var done int64
	if x.sealed.z != nil {
		done = x.sealed.z.size
	}
	x.sealed.mu.Unlock()
	return end-s.st.sealKeep()-done >= s.st.sealMin(done)
}

// sealMin is how many bytes more than done a seal takes at least: the
// option, and a sixteenth of what is sealed, since a seal copies all of
// that (at disk speed, undecoded), so a log's seals cost a few times its
// compressed size in all, however it grows.
func (st *Store) sealMin(done int64) int64 {
	m := st.opts.SealMin
	switch {
	case m > 0:
	case st.opts.Seal == SealAfterAppend:
		m = AfterAppendSealMin
	default:
		m = DefaultSealMin
	}
	return max(m, done/16)
}

func (st *Store) sealKeep() int64 {
	switch {
	case st.opts.SealKeep > 0:
		return st.opts.SealKeep
	case st.opts.Seal == SealAfterAppend:
		return 0
	}
	return DefaultSealKeep
}

// Seal seals what can be sealed of a branch's log now (see above) and
// reports whether it did. It takes the session lock.
func (s *Session) Seal(branchID string) (bool, error) {
	unlock, err := s.lk.lock()
	if err != nil {
		return false, err
	}
	defer unlock()
	if err := s.writable(); err != nil {
		return false, err
	}
	return s.sealLocked(branchID)
}

// sealLocked is Seal for a caller that holds the session lock.
func (s *Session) sealLocked(branchID string) (bool, error) {
	x := s.logIndex(branchID)
	x.mu.Lock()
	err := x.refresh()
	// The last complete line that ends SealKeep bytes before the end.
	limit := x.scanned - s.st.sealKeep()
	i := sort.Search(len(x.msgs), func(i int) bool { return x.msgs[i].end() > limit })
	var end int64
	if i > 0 {
		end = x.msgs[i-1].end()
	}
	x.mu.Unlock()
	if err != nil {
		return false, err
	}
	s.removeSealTemps(branchID)
	lf, err := x.open()
	if err != nil {
		return false, err
	}
	defer lf.Close()
	if lf.zerr != nil {
		return false, lf.zerr // fsck says what to do with it
	}
	if end-lf.sealed() < s.st.sealMin(lf.sealed()) {
		if lf.z != nil {
			// A seal a crash cut short before its punch: free the
			// blocks now (punching a hole again costs nothing).
			return false, punch(x.path, lf.sealed())
		}
		return false, nil
	}
	if !s.st.canPunch(filepath.Dir(x.path)) {
		return false, nil
	}
	if err := s.writeSealed(x.path, lf, lf.z, end, nil); err != nil {
		return false, fmt.Errorf("seal %s: %w", x.path, err)
	}
	x.mu.Lock()
	if x.refresh() == nil {
		x.keepAll()
	}
	x.mu.Unlock()
	return true, nil
}

// lineEdit replaces a line of the sealed part with spaces (blankLine).
type lineEdit struct {
	off int64
	n   int
}

// writeSealed writes a sealed file of the log at logPath holding [0,
// end): old's frames as they are (but the one holding edit, made anew
// with the line blanked), then the log's bytes from old's end read from
// lf; then renames it in and punches the plain log (the steps above).
func (s *Session) writeSealed(logPath string, lf *logFile, old *sealedLog, end int64, edit *lineEdit) error {
	dir, name := filepath.Split(sealedPath(logPath))
	tmp := filepath.Join(dir, tmpPrefix+name+"-"+strconv.FormatUint(uint64(rand.Uint32()), 10))
	f, err := openFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fileMode)
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			remove(tmp)
		}
	}()
	bw := bufio.NewWriterSize(f, 256<<10)
	sw := &sealedWriter{w: bw}
	var from int64
	if old != nil {
		for i := range old.frames {
			fe := old.frameEnd(i)
			if edit != nil && edit.off >= old.frames[i].start && edit.off < fe {
				data, err := old.decode(i)
				if err != nil {
					return err
				}
				data = append([]byte(nil), data...)
				at := edit.off - old.frames[i].start
				for j := range edit.n {
					data[at+int64(j)] = ' '
				}
				err = sw.addFrame(data)
			} else {
				err = sw.copyFrame(old, i)
			}
			if err != nil {
				return err
			}
		}
		from = old.size
	}
	// The log is read in pieces, one buffer for all: a seal's memory
	// does not grow with the log.
	const chunk = 1 << 20
	var carry, buf []byte
	for pos := from; pos < end; {
		n := min(chunk, end-pos)
		if need := len(carry) + int(n); cap(buf) < need {
			buf = make([]byte, need)
		}
		buf = buf[:copy(buf[:cap(buf)], carry)+int(n)]
		if _, err := lf.ReadAt(buf[len(carry):], pos); err != nil {
			return err
		}
		pos += n
		frames := frameLines(buf)
		// The last piece may be a line cut by the chunk: it goes on.
		if last := frames[len(frames)-1]; pos < end && last[len(last)-1] != '\n' {
			frames, carry = frames[:len(frames)-1], last
		} else {
			carry = nil
		}
		for _, fr := range frames {
			if err := sw.addFrame(fr); err != nil {
				return err
			}
		}
	}
	if len(carry) > 0 {
		if err := sw.addFrame(carry); err != nil {
			return err
		}
	}
	if err := sw.finish(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	ok = true
	if err := step("written"); err != nil {
		return err
	}
	if err := s.st.formatForSeal(); err != nil {
		remove(tmp)
		return err
	}
	if err := rename(tmp, sealedPath(logPath), 0); err != nil {
		remove(tmp)
		return err
	}
	if err := syncDir(dir); err != nil {
		return err
	}
	if err := step("renamed"); err != nil {
		return err
	}
	if err := punch(logPath, end); err != nil {
		return err
	}
	return step("punched")
}

// removeSealTemps removes the temporary sealed files of a branch a crash
// left; the caller holds the session lock, under which alone they are
// written.
func (s *Session) removeSealTemps(branchID string) {
	prefix := tmpPrefix + branchID + ".jsonl" + sealedSuffix + "-"
	ents, _ := readDir(s.path("logs"))
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), prefix) && e.Type().IsRegular() {
			remove(s.path("logs", e.Name()))
		}
	}
}

// formatForSeal makes FORMAT say formatSealed, durably, if it does not.
func (st *Store) formatForSeal() error {
	if st.sealedFormat.Load() {
		return nil
	}
	v, err := readFormat(st.path("FORMAT"))
	if err != nil {
		return err
	}
	if v < formatSealed {
		if err := writeFileAtomic(st.path("FORMAT"), formatLine(formatSealed)); err != nil {
			return err
		}
	}
	st.sealedFormat.Store(true)
	return nil
}

// canPunch reports whether the file system of dir frees a file's blocks
// on FALLOC_FL_PUNCH_HOLE, asked once per store with a file of its own.
func (st *Store) canPunch(dir string) bool {
	switch st.punch.Load() {
	case 1:
		return true
	case 2:
		return false
	}
	p := filepath.Join(dir, tmpPrefix+"punch-"+strconv.FormatUint(uint64(rand.Uint32()), 10))
	ok := false
	if f, err := openFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, fileMode); err == nil {
		if _, err := f.Write(make([]byte, 16<<10)); err == nil {
			ok = unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, 0, 8<<10) == nil
		}
		f.Close()
		remove(p)
	}
	if ok {
		st.punch.Store(1)
	} else {
		st.punch.Store(2)
	}
	return ok
}

// punch frees the blocks of the log's [0, end), keeping its size and its
// mtime: the bytes did not change, only where they are kept.
func punch(logPath string, end int64) error {
	f, err := openFile(logPath, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return err
	}
	if err := unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, 0, end); err != nil {
		return &os.PathError{Op: "punch", Path: logPath, Err: err}
	}
	// futimens: atime left as it is, mtime put back.
	ts := [2]unix.Timespec{{Nsec: unix.UTIME_OMIT}, st.Mtim}
	if _, _, e := unix.Syscall6(unix.SYS_UTIMENSAT, f.Fd(), 0, uintptr(unsafe.Pointer(&ts[0])), 0, 0, 0); e != 0 {
		return &os.PathError{Op: "futimens", Path: logPath, Err: e}
	}
	return nil
}
