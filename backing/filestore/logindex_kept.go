package filestore

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/sessfs/sessfs/backing"
)

// The kept message index: a log's index (logIndex: where each message
// is, its kind, the lines that are not messages) kept on disk, so that a
// fresh process reads it and then scans only the log's tail past it,
// instead of the whole log. One file per branch,
// index/logs/<session-id>/<branch-id>, under the store's derived
// indexes: deleting index/ forgets it and nothing else. A file is
//
//	sessfs logindex 2 <log inode> <kinds stamp>\n
//	record…
//
// and a record covers the complete lines of the log in [from, to):
// uvarints from, to, first (its first message's index), lines (the log's
// complete lines before to), count, the count of bad lines and per bad
// line the bytes since the previous one (or from), its line number and
// length; then count messages of refLen bytes each, little-endian: the
// bytes before it since the previous one's end (or from; 4 bytes), its
// length (4) and its kind (1, kindBits); then a CRC-32 of the log's
// last bytes before to (up to keptTail), and a CRC-32 of the record
// seeded with the header. The messages are fixed-width so that a long
// log's index loads in one pass of loads into one slice, streamed
// (kept_stream.go): a fresh mount's first stat of a session of two
// million messages reads 18 MB of them. Layout 1 took 3.7 bytes a message
// in uvarints; logindex_kept1.go still reads it, and the file is then
// written anew.
//
// It is believed as sizes.go believes kept sizes, the ideas reused for
// a file that checks the log rather than a rendering: the header names
// the log's inode and how lines are classified (kindStamp), a record must
// pass its CRC under this header and follow the one before (from is where
// it ended), and the last record's end must still be where it was in the
// log: no farther than its size, on a newline, the bytes before it the
// same (the tail CRC). A log replaced, cut back, or cut back and grown
// again past the old end fails one of these and is scanned whole, and
// the file written anew. Bad lines are read again on load (they are
// rare): one fsck has since blanked is dropped, and one that parses now
// means the log changed in place, so nothing of the file is believed.
// The Marks are not kept: Push rebuilds them from the kinds.
//
// When: a process keeps what it indexed once it is keepEvery bytes past
// what the file covers, after a scan or after an append (out of the
// fsync, under the session lock then), one O_APPEND write of a record
// (refLen bytes a message, and some 30 a MiB of log); the file is written
// anew (temp file and rename, not synced) when there is none yet, or it
// has a torn record or a gap. No lock is taken: two writers at once can
// only repeat or tear records, and a reader skips a repeat and stops at a
// torn one or a gap; a record seeded with another header (the log was
// replaced meanwhile) fails its CRC.

// logIndexMagic opens a kept index; the number is the layout's version.
// logIndexMagic1 opens one of layout 1, which is read and written anew.
const (
	logIndexMagic  = "sessfs logindex 2"
	logIndexMagic1 = "sessfs logindex 1"
)

// refLen is the bytes of a message in a record: gap, length, kind.
const refLen = 4 + 4 + 1

// keepEvery is how many bytes of log a process indexes past the file
// before it keeps them: the file costs a write per MiB of log at most,
// and a fresh process scans less than that plus what others appended
// since. A variable for the tests.
var keepEvery int64 = 1 << 20

const (
	keptTail    = 4 << 10 // bytes before a record's end its tail CRC covers
	maxKeptBad  = 1024    // a log with more bad lines is not kept: loading rereads them
	kindBitsLen = 4
)

// kindStamp names how Classify sorts lines: a digest of its answers on
// lines of every kind, so that a binary classifying differently never
// believes kinds another one kept.
var kindStamp = func() string {
	samples := []string{
		`{"role":"user","content":"hi"}`,
		`{"role":"user","content":[{"type":"text","text":"hi"}]}`,
		`{"role":"user","content":[{"type":"tool_result","content":"x"}]}`,
		`{"role":"user","content":[{"type":"function_call_output","output":"x"}]}`,
		`{"role":"user","context":"instructions","content":"x"}`,
		`{"role":"system","content":"x"}`,
		`{"role":"developer","content":"x"}`,
		`{"role":"assistant","content":"x"}`,
		`{"role":"tool","content":"x"}`,
		`{"role":"event","event":"turn_end","content":""}`,
		`{"role":"event","event":"x","source_seq":1,"content":""}`,
		`{"role":"event","event":{"type":"x"},"content":""}`,
		`{"role":"user"}`, `{"content":"x"}`, `[1]`, `{"role":1,"content":"x"}`, `not json`,
	}
	var b []byte
	for _, s := range samples {
		k, _, err := backing.Classify([]byte(s))
		b = append(b, kindBits(k), byte(boolBit(err != nil)))
	}
	return fmt.Sprintf("%08x", crc32.ChecksumIEEE(b))
}()

func boolBit(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// kindBits packs a Kind in kindBitsLen bits; kindOfBits unpacks them. A
// field added to backing.Kind needs a bit here and a new layout version
// (TestKeptKindBits fails until it has them).
func kindBits(k backing.Kind) uint8 {
	return boolBit(k.Prompt) | boolBit(k.Event)<<1 | boolBit(k.Context)<<2 | boolBit(k.Typed)<<3
}

func kindOfBits(b uint8) backing.Kind {
	return backing.Kind{Prompt: b&1 != 0, Event: b&2 != 0, Context: b&4 != 0, Typed: b&8 != 0}
}

// keptIndexPath is where branch id's kept index is.
func (s *Session) keptIndexPath(branchID string) string {
	return s.st.path("index", "logs", s.id, branchID)
}

func logIndexHeader(magic string, ino uint64) []byte {
	return fmt.Appendf(nil, "%s %d %s\n", magic, ino, kindStamp)
}

// keptBad is a bad line as a record holds it: what Classify said is not
// kept, the line is read again.
type keptBad struct {
	off  int64
	line int
	n    int
}

// keptRecord is one record, decoded but for its messages, which the
// decoder appends to the caller's slice.
type keptRecord struct {
	from, to int64
	first    int
	lines    int
	count    int
	bad      []keptBad
	tail     uint32
}

// errGapTooLong refuses to keep the index of a log with more than 4 GiB
// of lines that are not messages between two messages.
var errGapTooLong = errors.New("kept index: a gap between messages past 4 GiB")

// encodeRecord is the record of what x indexed past x.kept. The caller
// holds x.mu.
func (x *logIndex) encodeRecord(seed, tail uint32) ([]byte, error) {
	msgs, bad := x.msgs[x.keptMsgs:], x.bad[x.keptBad:]
	rec := make([]byte, 0, 6*binary.MaxVarintLen64+len(bad)*3*binary.MaxVarintLen64+len(msgs)*refLen+8)
	for _, v := range []int64{x.kept, x.scanned, int64(x.keptMsgs), int64(x.lines), int64(len(msgs)), int64(len(bad))} {
		rec = binary.AppendUvarint(rec, uint64(v))
	}
	prev := x.kept
	for i, b := range bad {
		rec = binary.AppendUvarint(rec, uint64(b.Offset-prev))
		rec = binary.AppendUvarint(rec, uint64(b.Line))
		rec = binary.AppendUvarint(rec, uint64(x.badN[x.keptBad+i]))
		prev = b.Offset
	}
	prev = x.kept
	for _, m := range msgs {
		gap := m.off - prev
		if gap < 0 || gap > math.MaxUint32 {
			return nil, errGapTooLong
		}
		rec = binary.LittleEndian.AppendUint32(rec, uint32(gap))
		rec = binary.LittleEndian.AppendUint32(rec, m.n)
		rec = append(rec, kindBits(m.Kind))
		prev = m.end()
	}
	rec = binary.LittleEndian.AppendUint32(rec, tail)
	return binary.LittleEndian.AppendUint32(rec, crc32.Update(seed, crc32.IEEETable, rec)), nil
}

// decodeRecord reads the next record of k, checked with seed, and
// appends its messages to msgs; ok is false for a torn or damaged one,
// msgs then as it was.
func decodeRecord(k *keptStream, seed uint32, msgs []msgRef) (r keptRecord, _ []msgRef, ok bool) {
	data := k.peek(keptChunk)
	p := 0
	next := func() uint64 {
		if !ok {
			return 0
		}
		v, n := binary.Uvarint(data[p:])
		if n <= 0 {
			ok = false
			return 0
		}
		p += n
		return v
	}
	ok = true
	from, to, first, lines, count, nbad := next(), next(), next(), next(), next(), next()
	if !ok || from > to || to > 1<<62 || count > uint64(k.left)/refLen || nbad > maxKeptBad {
		return r, msgs, false
	}
	r = keptRecord{from: int64(from), to: int64(to), first: int(first), lines: int(lines), count: int(count)}
	at := r.from
	for range nbad {
		gap, line, n := next(), next(), next()
		if !ok || gap > to || n > to {
			return r, msgs, false
		}
		at += int64(gap)
		if at+int64(n) >= r.to {
			return r, msgs, false
		}
		r.bad = append(r.bad, keptBad{off: at, line: int(line), n: int(n)})
	}
	sum := crc32.Update(seed, crc32.IEEETable, data[:p])
	k.consume(p)
	// The messages, as many at a time as the buffer holds. What is
	// checked here is what no writer of this layout makes (messages out
	// the record, of unknown kind bits); the CRC, checked
	// at the end, is what tells a torn or damaged record.
	start := len(msgs)
	msgs = slices.Grow(msgs, r.count)
	at = r.from
	for left := r.count; left > 0; {
		data = k.peek(refLen)
		n := min(left, len(data)/refLen)
		if n == 0 {
			return r, msgs[:start], false
		}
		for b := data[:n*refLen]; len(b) >= refLen; b = b[refLen:] {
			m := msgRef{off: at + int64(binary.LittleEndian.Uint32(b)), n: binary.LittleEndian.Uint32(b[4:]), Kind: kindOfBits(b[8])}
			if m.end() > r.to || b[8] >= 1<<kindBitsLen {
				return r, msgs[:start], false
			}
			msgs = append(msgs, m)
			at = m.end()
		}
		sum = crc32.Update(sum, crc32.IEEETable, data[:n*refLen])
		k.consume(n * refLen)
		left -= n
	}
	data = k.peek(8)
	if len(data) < 8 || crc32.Update(sum, crc32.IEEETable, data[:4]) != binary.LittleEndian.Uint32(data[4:]) {
		return r, msgs[:start], false
	}
	r.tail = binary.LittleEndian.Uint32(data)
	k.consume(8)
	return r, msgs, true
}

// tailSum is the CRC-32 of the log's bytes before end (up to keptTail),
// and whether the last of them is a newline.
func tailSum(f io.ReaderAt, end int64) (uint32, bool, error) {
	if end == 0 {
		return 0, true, nil
	}
	start := max(0, end-keptTail)
	buf := make([]byte, end-start)
	if _, err := f.ReadAt(buf, start); err != nil {
		return 0, false, err
	}
	return crc32.ChecksumIEEE(buf), buf[len(buf)-1] == '\n', nil
}

// load fills the empty index of the log f (of size bytes) from the kept
// file, when it is there and holds: afterwards x.scanned is where the
// file ends, and refresh scans only past it. The caller holds x.mu, with
// x reset to f's inode. A stale file is removed.
func (x *logIndex) load(f io.ReaderAt, size int64) {
	kf, err := openFile(x.keptPath, os.O_RDONLY, 0)
	if err != nil {
		return // missing (or unreadable): scan, and keep it anew
	}
	defer kf.Close()
	fi, err := kf.Stat()
	if err != nil {
		return
	}
	if !x.loadFrom(f, size, newKeptStream(kf, fi.Size())) {
		x.dropKept()
	}
}

// loadFrom is load's work on the kept file k; false says it is stale.
func (x *logIndex) loadFrom(f io.ReaderAt, size int64, k *keptStream) bool {
	head := logIndexHeader(logIndexMagic, x.ino)
	layout1 := false
	if !bytes.HasPrefix(k.peek(len(head)), head) {
		head = logIndexHeader(logIndexMagic1, x.ino)
		if layout1 = bytes.HasPrefix(k.peek(len(head)), head); !layout1 {
			return false // another log (inode), another layout or another classifier
		}
	}
	k.consume(len(head))
	seed := crc32.ChecksumIEEE(head)
	var msgs []msgRef
	// next decodes the next record, more says whether bytes are left.
	next := func() (r keptRecord, ok bool) {
		r, msgs, ok = decodeRecord(k, seed, msgs)
		return r, ok
	}
	more := func() bool { return !k.atEnd() }
	if layout1 {
		// Read whole: it is read once, then written anew.
		data, err := io.ReadAll(io.MultiReader(bytes.NewReader(k.peek(0)), k.r))
		if err != nil {
			return false
		}
		next = func() (r keptRecord, ok bool) {
			var n int
			r, msgs, n, ok = decodeRecord1(data, seed, msgs)
			data = data[n:]
			return r, ok
		}
		more = func() bool { return len(data) > 0 }
	} else {
		// Every message takes refLen bytes of the file: one allocation.
		msgs = make([]msgRef, 0, k.left/refLen)
	}
	var bad []keptBad
	var to int64
	var lines, recs int
	var tail uint32
	whole := true // every record read, none torn, no gap
	for more() {
		had := len(msgs)
		r, ok := next()
		if !ok {
			whole = false
			break // torn: the next keep writes the file anew
		}
		if r.to <= to && recs > 0 {
			msgs = msgs[:had]
			continue // a repeat, by another process keeping the same lines
		}
		if r.from != to || r.first != had {
			msgs = msgs[:had]
			whole = false
			break // a gap
		}
		bad = append(bad, r.bad...)
		to, lines, tail = r.to, r.lines, r.tail
		recs++
	}
	if recs == 0 || to > size {
		return false
	}
	sum, nl, err := tailSum(f, to)
	if err != nil || !nl || sum != tail {
		return false // cut back, or cut back and grown again
	}
	var bads []backing.BadLine
	var badN []int
	for _, b := range bad {
		line := make([]byte, b.n)
		if _, err := f.ReadAt(line, b.off); err != nil {
			return false
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue // blanked by a repair (fsck): blank lines are skipped
		}
		_, _, cerr := backing.Classify(line)
		if cerr == nil {
			return false // the log changed in place: believe none of it
		}
		bads = append(bads, backing.BadLine{Offset: b.off, Line: b.line, Err: cerr})
		badN = append(badN, b.n)
	}
	x.msgs = msgs
	x.markAll()
	x.bad, x.badN, x.lines, x.scanned = bads, badN, lines, to
	x.kept, x.keptMsgs, x.keptBad, x.keptRecs = to, len(msgs), len(bads), recs
	if !whole || layout1 {
		// A torn record or a gap: written anew by the next keep. A file of
		// layout 1 is written anew now, for the next process to copy.
		x.kept, x.keptMsgs, x.keptBad, x.keptRecs = 0, 0, 0, 0
		if layout1 {
			x.keepAll()
		}
	}
	x.ids = nil // not collected: refreshIDs builds them from the log
	return true
}

// keepIfDue keeps what x indexed when it is keepEvery bytes past what the
// file covers. The caller holds x.mu, with x up to date with the log.
func (x *logIndex) keepIfDue() {
	if x.scanned-x.kept >= keepEvery {
		x.keepAll()
	}
}

// keepAll keeps what x indexed that is not kept yet, however little. A
// seal does: what it sealed a fresh process would otherwise scan through
// zstd, and an import seals every session it stores (most of them far
// shorter than keepEvery). The caller holds x.mu, with x up to date.
func (x *logIndex) keepAll() {
	if x.keptPath == "" || x.scanned == x.kept || len(x.bad) > maxKeptBad {
		return
	}
	// Derived: failing to keep it costs a later process a scan, no more.
	x.keep()
}

// keep writes what x indexed past x.kept to the file: a record appended,
// or the whole file anew.
func (x *logIndex) keep() error {
	f, err := x.open()
	if err != nil {
		return err
	}
	tail, _, err := tailSum(f, x.scanned)
	f.Close()
	if err != nil {
		return err
	}
	head := logIndexHeader(logIndexMagic, x.ino)
	seed := crc32.ChecksumIEEE(head)
	if x.kept > 0 {
		rec, err := x.encodeRecord(seed, tail)
		if err != nil {
			return err
		}
		af, err := openFile(x.keptPath, os.O_WRONLY|os.O_APPEND, 0)
		if err == nil {
			_, err = af.Write(rec)
			if cerr := af.Close(); err == nil {
				err = cerr
			}
			if err == nil {
				x.keptUpTo(x.keptRecs + 1)
			}
			return err
		}
		if !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	sdir := filepath.Dir(x.keptPath) // index/logs/<session-id>
	for _, dir := range []string{filepath.Dir(filepath.Dir(sdir)), filepath.Dir(sdir), sdir} {
		if err := mkdirExisting(dir); err != nil {
			return err
		}
	}
	x.kept, x.keptMsgs, x.keptBad = 0, 0, 0
	rec, err := x.encodeRecord(seed, tail)
	if err != nil {
		return err
	}
	if err := replaceQuick(x.keptPath, append(head, rec...)); err != nil {
		return err
	}
	x.keptUpTo(1)
	return nil
}

// keptUpTo records that the file now covers everything x indexed, in recs
// records.
func (x *logIndex) keptUpTo(recs int) {
	x.kept, x.keptMsgs, x.keptBad, x.keptRecs = x.scanned, len(x.msgs), len(x.bad), recs
}

// dropKept removes a stale kept index.
func (x *logIndex) dropKept() {
	if err := remove(x.keptPath); err == nil || errors.Is(err, os.ErrNotExist) {
		x.kept, x.keptMsgs, x.keptBad, x.keptRecs = 0, 0, 0, 0
	}
}
