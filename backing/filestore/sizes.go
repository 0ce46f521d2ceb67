package filestore

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/sessfs/sessfs/backing"
)

// The kept piece sizes (backing.SizeKeeper): one file per branch and
// format, index/sizes/<session-id>/<branch-id>.<format>, under the
// store's derived indexes, so deleting index/ forgets them and nothing
// else. A file is
//
//	sessfs sizes 2 <log inode> <stamp>\n
//	record…
//
// and a record is the sizes of own messages [from, from+count): from and
// count (uvarints), the count sizes (4 bytes each, little-endian: a
// fresh mount's first stat copies them, where layout 1's uvarints took
// a fifth of it to decode), the log offset just past message
// from+count-1 (a uvarint), then a CRC-32 of those bytes seeded with the
// header. A file of layout 1 ("sessfs sizes 1", the sizes uvarints) is
// read and written anew in layout 2. A
// mount appends a record as the branch grows (O_APPEND, one write), and a
// record is believed only when its CRC holds under this file's header and
// its end offset is where the log's message ends now: a torn record, one
// written under another stamp, or a log rewritten or cut back make it
// stale. What is stale is removed and rebuilt by the caller. No lock is
// taken: two writers at once can only repeat or tear records, which a
// reader skips or cuts off.

// sizesMagic opens a sizes file; the number is the layout's version.
// sizesMagic1 opens one of layout 1, which is read and written anew.
const (
	sizesMagic  = "sessfs sizes 2"
	sizesMagic1 = "sessfs sizes 1"
)

var _ backing.SizeKeeper = (*Session)(nil)

// sizesPath is where branch id's sizes in format are kept. format is a
// caller's name: only letters, digits and dots make a file name of it.
func (s *Session) sizesPath(branchID, format string) (string, error) {
	bad := format == "" || format[0] == '.'
	for _, c := range []byte(format) {
		bad = bad || !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.')
	}
	if bad {
		return "", backing.Sentencef(backing.ErrInvalid, "format %q: not a name for kept sizes", format)
	}
	if err := backing.ValidName(branchID); err != nil || filepath.Base(branchID) != branchID {
		return "", backing.Sentencef(backing.ErrInvalid, "branch id %q", branchID)
	}
	return s.st.path("index", "sizes", s.id, branchID+"."+format), nil
}

// logNow is the branch's own log as it is now: its inode, and where each
// message ends (the offset just past its newline; false past the last).
func (s *Session) logNow(branchID string) (ino uint64, ends func(i int) (int64, bool), err error) {
	x := s.logIndex(branchID)
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.refresh(); err != nil {
		return 0, nil, err
	}
	msgs := x.msgs[:len(x.msgs):len(x.msgs)] // only grows: a copy of the header is enough
	return x.ino, func(i int) (int64, bool) {
		if i < 0 || i >= len(msgs) {
			return 0, false
		}
		return msgs[i].end(), true
	}, nil
}

// sizesHeader is the header of a file of sizes kept under stamp for the
// log of inode ino.
func sizesHeader(magic string, ino uint64, stamp string) []byte {
	return fmt.Appendf(nil, "%s %d %s\n", magic, ino, stamp)
}

// KeptSizes implements backing.SizeKeeper.
func (s *Session) KeptSizes(branchID, format, stamp string) ([]uint32, error) {
	path, err := s.sizesPath(branchID, format)
	if err != nil {
		return nil, err
	}
	f, err := openFile(path, os.O_RDONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	ino, ends, err := s.logNow(branchID)
	if err != nil {
		return nil, err
	}
	k := newKeptStream(f, fi.Size())
	head := sizesHeader(sizesMagic, ino, stamp)
	layout1 := false
	if !bytes.HasPrefix(k.peek(len(head)), head) {
		head = sizesHeader(sizesMagic1, ino, stamp)
		if layout1 = bytes.HasPrefix(k.peek(len(head)), head); !layout1 {
			return nil, dropSizes(path) // another stamp, or the log was replaced
		}
	}
	k.consume(len(head))
	sizes, used := parseSizes(k, crc32.ChecksumIEEE(head), ends, layout1)
	good := int64(len(head)) + used
	switch {
	case len(sizes) == 0:
		return nil, dropSizes(path)
	case layout1:
		// Written anew in layout 2, which the caller may append to.
		end, _ := ends(len(sizes) - 1)
		head := sizesHeader(sizesMagic, ino, stamp)
		if err := replaceQuick(path, append(head, sizesRecord(crc32.ChecksumIEEE(head), sizes, 0, end)...)); err != nil {
			return nil, err
		}
	case good < fi.Size():
		// A torn or stale record, and anything after it: cut it off, so
		// that what the caller appends next is read.
		if err := truncate(path, good); err != nil {
			return nil, err
		}
	}
	return sizes, nil
}

// parseSizes reads the records of k, each checked with seed and against
// the log (ends), and returns the sizes they give from own message 0 on
// and how many of its bytes the records used take. It stops at the
// first record that is torn, stale or leaves a gap; one that repeats
// sizes already read adds only what it has beyond them. layout1 reads
// sizes as uvarints.
func parseSizes(k *keptStream, seed uint32, ends func(int) (int64, bool), layout1 bool) ([]uint32, int64) {
	size := k.left
	// Every size takes 4 bytes of the file (at least 1 in layout 1): one
	// allocation.
	sizes := make([]uint32, 0, size/4)
	good := int64(0) // bytes of the file consumed by the records used
	for !k.atEnd() {
		sum, ok := seed, true
		uvarint := func() uint64 {
			b := k.peek(binary.MaxVarintLen64)
			v, n := binary.Uvarint(b)
			if !ok || n <= 0 {
				ok = false
				return 0
			}
			sum = crc32.Update(sum, crc32.IEEETable, b[:n])
			k.consume(n)
			return v
		}
		from, count := uvarint(), uvarint()
		if !ok || count == 0 || count > uint64(k.left) || from > uint64(len(sizes)) {
			break
		}
		at := len(sizes)
		got := sizes[at:at] // read past sizes, then kept or cut off
		for left := int(count); ok && left > 0; {
			if layout1 {
				v := uvarint()
				ok = ok && v <= 1<<32-1
				got = append(got, uint32(v))
				left--
				continue
			}
			b := k.peek(4)
			n := min(left, len(b)/4)
			if ok = n > 0; ok {
				for i := range n {
					got = append(got, binary.LittleEndian.Uint32(b[4*i:]))
				}
				sum = crc32.Update(sum, crc32.IEEETable, b[:4*n])
				k.consume(4 * n)
				left -= n
			}
		}
		end := uvarint()
		b := k.peek(4)
		if !ok || len(b) < 4 || sum != binary.LittleEndian.Uint32(b) {
			break
		}
		k.consume(4)
		if e, ok := ends(int(from + count - 1)); !ok || e != int64(end) {
			break // the log changed under it
		}
		// Only what it has beyond the sizes read, moved in place.
		if have := uint64(at); from+count > have {
			sizes = append(sizes[:at], got[have-from:]...)
		}
		good = size - k.left
	}
	return sizes, good
}

// sizesRecord is the record of sizes [from, len(sizes)), the log's
// message len(sizes)-1 ending at end.
func sizesRecord(seed uint32, sizes []uint32, from int, end int64) []byte {
	rec := binary.AppendUvarint(make([]byte, 0, 2*binary.MaxVarintLen64+4*(len(sizes)-from)+binary.MaxVarintLen64+4), uint64(from))
	rec = binary.AppendUvarint(rec, uint64(len(sizes)-from))
	for _, v := range sizes[from:] {
		rec = binary.LittleEndian.AppendUint32(rec, v)
	}
	rec = binary.AppendUvarint(rec, uint64(end))
	return binary.LittleEndian.AppendUint32(rec, crc32.Update(seed, crc32.IEEETable, rec))
}

// KeepSizes implements backing.SizeKeeper: it appends what is beyond
// kept to the file, or writes the file anew when there is none (kept 0,
// or it went). It is not made durable: a crash can lose it, never make
// it wrong.
func (s *Session) KeepSizes(branchID, format, stamp string, sizes []uint32, kept int) error {
	if kept >= len(sizes) {
		return nil
	}
	path, err := s.sizesPath(branchID, format)
	if err != nil {
		return err
	}
	ino, ends, err := s.logNow(branchID)
	if err != nil {
		return err
	}
	end, ok := ends(len(sizes) - 1)
	if !ok {
		return fmt.Errorf("keep sizes of %d messages of branch %s: its log has fewer", len(sizes), branchID)
	}
	head := sizesHeader(sizesMagic, ino, stamp)
	seed := crc32.ChecksumIEEE(head)
	if kept > 0 {
		f, err := openFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err == nil {
			_, err = f.Write(sizesRecord(seed, sizes, kept, end))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			return err
		}
		if !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	for _, dir := range []string{s.st.path("index"), s.st.path("index", "sizes"), filepath.Dir(path)} {
		if err := mkdirExisting(dir); err != nil {
			return err
		}
	}
	return replaceQuick(path, append(head, sizesRecord(seed, sizes, 0, end)...))
}

// replaceQuick replaces a derived file with data: a temp file renamed
// over it, so a reader sees the old file or the new, but not synced.
func replaceQuick(path string, data []byte) error {
	tmp := filepath.Join(filepath.Dir(path), tmpPrefix+filepath.Base(path)+"-"+strconv.FormatUint(uint64(rand.Uint32()), 10))
	f, err := openFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW, fileMode)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = rename(tmp, path, 0)
	}
	if err != nil {
		remove(tmp)
	}
	return err
}

// dropSizes removes a stale file of sizes.
func dropSizes(path string) error {
	if err := remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// truncate cuts a file of the store to size.
func truncate(path string, size int64) error {
	f, err := openFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	err = f.Truncate(size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// keptDirs are the folders under index/ that keep, a folder a session,
// what is derived from its logs: the kept sizes and the log indexes
// (logindex_kept.go).
var keptDirs = []string{"sizes", "logs"}

// dropKept forgets all that is kept of session id: it is gone.
func (st *Store) dropKept(id string) error {
	for _, dir := range keptDirs {
		if err := removeAll(st.path("index", dir, id)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// dropKeptBranch forgets all that is kept of branch id, removed: its log
// index and its sizes in every format. Derived, so a failure costs only
// space, and a branch restored is read again.
func (s *Session) dropKeptBranch(id string) {
	remove(s.keptIndexPath(id))
	sizes, _ := filepath.Glob(filepath.Join(s.st.path("index", "sizes", s.id), id+".*"))
	for _, f := range sizes {
		remove(f)
	}
}
