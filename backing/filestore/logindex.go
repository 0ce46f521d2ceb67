package filestore

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// msgRef locates one message in a log: 16 bytes a message, so an index of a
// million messages costs 16 MB.
type msgRef struct {
	off int64  // offset of the line's first byte
	n   uint32 // length without the newline
	backing.Kind
}

// end is the offset just past the message's newline.
func (r msgRef) end() int64 { return r.off + int64(r.n) + 1 }

// logIndex maps the messages of one log file to byte offsets. It is built
// lazily on first use and extended as the file grows, so a read of message
// k after the first costs one fstat, not a scan.
type logIndex struct {
	path string
	// keptPath is where the index is kept on disk (logindex_kept.go); ""
	// keeps none, for a reader that must read the log itself (fsck).
	keptPath string
	// sealed keeps the log's sealed start open (sealed.go, logfile.go).
	sealed sealedSource

	mu      sync.Mutex
	ino     uint64
	scanned int64 // offset just past the last complete line indexed
	lines   int   // complete lines indexed, including bad ones
	msgs    []msgRef
	marks   backing.Marks // turn starts and events among msgs
	bad     []backing.BadLine
	badN    []int // bad[i]'s length, for the kept index
	mtime   time.Time
	size    int64 // file size at the last refresh; > scanned means a torn tail
	// ids finds messages by id (see dedupe.go): nil until an append of a
	// message with its own id needs it, then kept up with the log.
	ids map[uint64]int32

	// What the kept file covers, as far as this process knows: the log up
	// to kept, messages [0, keptMsgs), bad lines [0, keptBad), in keptRecs
	// records. kept 0: nothing, or nothing worth appending to.
	kept                        int64
	keptMsgs, keptBad, keptRecs int
	read                        int64 // bytes of the log scan read, for the tests
}

func newLogIndex(path, keptPath string) *logIndex {
	return &logIndex{path: path, keptPath: keptPath, sealed: sealedSource{path: sealedPath(path)}}
}

// open opens the log for reading, sealed or not.
func (x *logIndex) open() (*logFile, error) { return openLogFile(x.path, &x.sealed) }

// refresh brings the index up to the file's current complete lines. The
// caller holds x.mu. A file that is missing reads as empty; one that was
// replaced or shrank below what was indexed is indexed again.
func (x *logIndex) refresh() error {
	f, err := x.open()
	if errors.Is(err, os.ErrNotExist) {
		x.reset(0)
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.f.Stat()
	if err != nil {
		return err
	}
	size := f.Size()
	if f.ino != x.ino || size < x.scanned || (size > x.scanned && !endsLine(f, x.scanned)) {
		x.reset(f.ino)
		if x.keptPath != "" {
			x.load(f, size)
		}
	}
	x.size, x.mtime = size, fi.ModTime()
	if size == x.scanned {
		return nil
	}
	if err := x.scan(f, size); err != nil {
		return err
	}
	x.keepIfDue()
	return nil
}

// endsLine reports whether the byte before off is a newline, as it is at
// the end of what was indexed. It is not when a failed append was cut
// back after this index saw it and the log then grew again: the index
// must then be rebuilt.
func endsLine(f io.ReaderAt, off int64) bool {
	if off == 0 {
		return true
	}
	b := make([]byte, 1)
	_, err := f.ReadAt(b, off-1)
	return err == nil && b[0] == '\n'
}

// reset empties the index for a scan from the start. An id set in use
// stays in use, emptied: the scan fills it again.
func (x *logIndex) reset(ino uint64) {
	x.ino, x.scanned, x.lines, x.msgs, x.marks, x.bad, x.badN, x.size = ino, 0, 0, nil, backing.Marks{}, nil, nil, 0
	x.kept, x.keptMsgs, x.keptBad, x.keptRecs = 0, 0, 0, 0
	clear(x.ids)
}

// scan indexes the complete lines in [x.scanned, size). A last line with no
// newline is a torn write (or one in progress): it is left for later.
func (x *logIndex) scan(f io.ReaderAt, size int64) error {
	const chunk = 1 << 20
	buf := make([]byte, 0, min(chunk, size-x.scanned))
	off := x.scanned // file offset of buf[0]
	pos := off       // next byte to read
	for pos < size {
		want := min(int64(chunk), size-pos)
		if int64(cap(buf)-len(buf)) < want {
			nb := make([]byte, len(buf), int64(len(buf))+want+chunk)
			copy(nb, buf)
			buf = nb
		}
		n, err := f.ReadAt(buf[len(buf):int64(len(buf))+want], pos)
		buf = buf[:len(buf)+n]
		x.read += int64(n)
		pos += int64(n)
		if err != nil && err != io.EOF {
			return err
		}
		if n == 0 {
			break // file shrank under us; index what we have
		}
		// Index every complete line in buf, keep the partial rest.
		start := 0
		for {
			i := bytes.IndexByte(buf[start:], '\n')
			if i < 0 {
				break
			}
			x.add(off+int64(start), buf[start:start+i])
			start += i + 1
		}
		x.scanned = off + int64(start)
		rest := copy(buf, buf[start:])
		buf = buf[:rest]
		off += int64(start)
	}
	return nil
}

// add indexes one complete line found at off.
func (x *logIndex) add(off int64, line []byte) {
	x.lines++
	if len(bytes.TrimSpace(line)) == 0 {
		return // blank lines carry nothing; not worth a report
	}
	k, id, err := backing.Classify(line)
	if err != nil {
		x.bad = append(x.bad, backing.BadLine{Offset: off, Line: x.lines, Err: err})
		x.badN = append(x.badN, len(line))
		return
	}
	x.push(msgRef{off: off, n: uint32(len(line)), Kind: k})
	if x.ids != nil {
		x.putID(id, len(x.msgs)-1)
	}
}

// push indexes the next message, placing its turn's start by the turn
// rule (backing.TurnStart) when it is a prompt.
func (x *logIndex) push(r msgRef) {
	x.msgs = append(x.msgs, r)
	x.marks.Push(len(x.msgs)-1, r.Kind, func(j int) backing.Kind { return x.msgs[j].Kind })
}

// markAll places the marks of all of x.msgs, as pushing each in turn
// does, each list allocated once: a fresh load of a long log's index
// spent a third of its time growing them.
func (x *logIndex) markAll() {
	var prompts, events, typed int
	for _, m := range x.msgs {
		prompts += int(boolBit(m.Prompt))
		events += int(boolBit(m.Event))
		typed += int(boolBit(m.Typed))
	}
	room := func(n int) []int32 {
		if n == 0 {
			return nil // as a scan leaves it
		}
		return make([]int32, 0, n)
	}
	x.marks = backing.Marks{Prompts: room(prompts), Turns: room(prompts), Events: room(events), Typed: room(typed)}
	kind := func(j int) backing.Kind { return x.msgs[j].Kind }
	for i, m := range x.msgs {
		x.marks.Push(i, m.Kind, kind)
	}
}

// appended records lines this process has just written at off, sparing a
// re-read of bytes it already has. If anything unindexed lies before off
// (another writer), a later refresh picks everything up instead.
func (x *logIndex) appended(off int64, lines [][]byte, kinds []backing.Kind) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if off != x.scanned || x.ino == 0 {
		return
	}
	for i, l := range lines {
		x.lines++
		x.push(msgRef{off: off, n: uint32(len(l)), Kind: kinds[i]})
		if x.ids != nil {
			x.putID(backing.IDOf(l), len(x.msgs)-1)
		}
		off += int64(len(l)) + 1
	}
	x.scanned = off
	if off > x.size {
		x.size = off
	}
	x.mtime = time.Now()
	x.keepIfDue() // after the append's fsync, never in it
}

// readRange reads the raw lines of refs, consecutive messages, with one pread.
func (x *logIndex) readRange(refs []msgRef) ([][]byte, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	f, err := x.open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	first, last := refs[0].off, refs[len(refs)-1].end()
	buf := make([]byte, last-first)
	if _, err := f.ReadAt(buf, first); err != nil {
		return nil, fmt.Errorf("read %s at %d: %w", x.path, first, err)
	}
	out := make([][]byte, len(refs))
	for i, r := range refs {
		s := r.off - first
		out[i] = buf[s : s+int64(r.n) : s+int64(r.n)]
	}
	return out, nil
}
