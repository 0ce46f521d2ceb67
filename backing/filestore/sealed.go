package filestore

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"

	"github.com/klauspost/compress/zstd"
)

// A sealed log: the start of a branch's log, [0, S) for a line boundary
// S, compressed beside it in logs/<branch-id>.jsonl.zst, so that its
// blocks in the plain log can be freed (seal.go). The plain log keeps its
// inode and its full size, so every offset (a message's, a fork point's)
// means what it meant; a reader takes [0, S) from here and the rest from
// the plain log (logfile.go). The file is
//
//	frame…                  zstd frames, each of whole lines of about
//	                        sealFrame bytes, independently decodable
//	trailer                 a zstd skippable frame (magic, length), then
//	  entry…                per frame, 24 bytes little-endian: its first
//	                        byte's offset in the log, its offset and
//	                        length in this file, a CRC-32C of its bytes
//	  footer                S, the frame count, a CRC-32C of the entries
//	                        and of these two, a version, sealedMagic
//
// So `zstd -dc` of the file gives the log's bytes [0, S) back without
// sessfs, and a read at an offset decompresses the one frame that holds
// it. Everything is checked when the file is opened but the frames, and
// a frame when it is decompressed (its length and its CRC).

const (
	sealedSuffix  = ".zst"
	sealedMagic   = "sfsseal\n"
	sealedVersion = 1
	sealedEntry   = 24
	sealedFooter  = 32
	// skippableMagic is the first of zstd's skippable frame magics: a
	// decoder that is not sessfs's passes over the trailer.
	skippableMagic = 0x184D2A50
)

// sealFrame is about how many bytes of log a frame holds: a read decodes
// that much at worst. A variable for the tests.
var sealFrame = 256 << 10

// sealedPath is where the sealed start of the log at path is kept.
func sealedPath(logPath string) string { return logPath + sealedSuffix }

// frameRef is one frame, from the index.
type frameRef struct {
	start int64 // its first byte's offset in the log
	coff  int64 // and in the sealed file
	clen  uint32
	sum   uint32 // CRC-32C of its log bytes
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// zstd's encoder and decoder are safe for concurrent use and costly to
// make: one each for the process.
var (
	zdec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(256<<20))
	// A window no bigger than a frame: more would only cost memory.
	zenc, _ = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedDefault),
		zstd.WithWindowSize(1<<20), zstd.WithLowerEncoderMem(true))
)

// sealedLog is a sealed file, its index read and checked. Its file is
// open while it is among the last read (sealed_files.go).
type sealedLog struct {
	path   string
	ino    uint64
	fsize  int64
	size   int64 // S: the log bytes it holds
	frames []frameRef

	mu   sync.Mutex // guards f and uses
	f    *os.File   // nil once closed by sealedFiles; opened again when read
	uses int        // reads of f under way: it is not closed under them
}

// frameCache holds the frames decoded last, of any log, for reads that
// go on where one stopped (a cat reads a frame in many pieces): a few,
// for the process, so a daemon that read every log of a big store keeps
// no more than these.
var frameCache struct {
	mu   sync.Mutex
	ents [16]decoded
	next int
}

type decoded struct {
	z    *sealedLog
	i    int
	data []byte
}

// errSealed wraps what is wrong with a sealed file.
var errSealed = errors.New("sealed log damaged")

// openSealed opens the sealed file at path and checks its trailer;
// os.ErrNotExist when there is none.
func openSealed(path string) (*sealedLog, error) {
	f, err := openFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	z, err := readSealed(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	sealedFiles.touch(z)
	return z, nil
}

func readSealed(f *os.File) (*sealedLog, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	z := &sealedLog{path: f.Name(), f: f, ino: fi.Sys().(*syscall.Stat_t).Ino, fsize: fi.Size()}
	if z.fsize < sealedFooter+8 {
		return nil, fmt.Errorf("%w: %d bytes, too short", errSealed, z.fsize)
	}
	foot := make([]byte, sealedFooter)
	if _, err := f.ReadAt(foot, z.fsize-sealedFooter); err != nil {
		return nil, err
	}
	if string(foot[24:]) != sealedMagic {
		return nil, fmt.Errorf("%w: no footer", errSealed)
	}
	if v := binary.LittleEndian.Uint32(foot[20:]); v != sealedVersion {
		return nil, fmt.Errorf("%w: version %d, this sessfs reads %d", errSealed, v, sealedVersion)
	}
	s, n := binary.LittleEndian.Uint64(foot), binary.LittleEndian.Uint64(foot[8:])
	if n == 0 || n > uint64(z.fsize)/sealedEntry {
		return nil, fmt.Errorf("%w: %d frames", errSealed, n)
	}
	ilen := int64(n) * sealedEntry
	trailer := 8 + ilen + sealedFooter
	if trailer > z.fsize {
		return nil, fmt.Errorf("%w: %d frames in %d bytes", errSealed, n, z.fsize)
	}
	idx := make([]byte, ilen)
	if _, err := f.ReadAt(idx, z.fsize-sealedFooter-ilen); err != nil {
		return nil, err
	}
	sum := crc32.Update(crc32.Checksum(idx, castagnoli), castagnoli, foot[:16])
	if sum != binary.LittleEndian.Uint32(foot[16:]) {
		return nil, fmt.Errorf("%w: index checksum", errSealed)
	}
	z.size = int64(s)
	end := z.fsize - trailer // where the frames end
	var at, coff int64
	for i := range int(n) {
		e := idx[i*sealedEntry:]
		r := frameRef{
			start: int64(binary.LittleEndian.Uint64(e)),
			coff:  int64(binary.LittleEndian.Uint64(e[8:])),
			clen:  binary.LittleEndian.Uint32(e[16:]),
			sum:   binary.LittleEndian.Uint32(e[20:]),
		}
		// Frames follow one another, each holding at least a byte.
		if (i == 0) != (r.start == 0) || i > 0 && r.start <= at || r.coff != coff || r.clen == 0 {
			return nil, fmt.Errorf("%w: frame %d out of place", errSealed, i)
		}
		at, coff = r.start, r.coff+int64(r.clen)
		z.frames = append(z.frames, r)
	}
	if coff != end || at >= z.size {
		return nil, fmt.Errorf("%w: the index does not cover the file", errSealed)
	}
	return z, nil
}

// Close closes the file.
func (z *sealedLog) Close() error {
	sealedFiles.forget(z)
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.f == nil {
		return nil
	}
	err := z.f.Close()
	z.f = nil
	return err
}

// frameEnd is where frame i's log bytes end.
func (z *sealedLog) frameEnd(i int) int64 {
	if i+1 < len(z.frames) {
		return z.frames[i+1].start
	}
	return z.size
}

// frameAt is the frame holding log offset off < z.size.
func (z *sealedLog) frameAt(off int64) int {
	lo, hi := 0, len(z.frames)
	for hi-lo > 1 { // the last frame starting at or before off
		m := (lo + hi) / 2
		if z.frames[m].start <= off {
			lo = m
		} else {
			hi = m
		}
	}
	return lo
}

// frame decodes frame i, or takes it from the cache; the bytes are not
// to be changed.
func (z *sealedLog) frame(i int) ([]byte, error) {
	c := &frameCache
	c.mu.Lock()
	for _, e := range c.ents {
		if e.z == z && e.i == i {
			c.mu.Unlock()
			return e.data, nil
		}
	}
	c.mu.Unlock()
	data, err := z.decode(i)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.ents[c.next] = decoded{z: z, i: i, data: data}
	c.next = (c.next + 1) % len(c.ents)
	c.mu.Unlock()
	return data, nil
}

// decode reads and decompresses frame i and checks it.
func (z *sealedLog) decode(i int) ([]byte, error) {
	r := z.frames[i]
	comp, err := z.raw(i)
	if err != nil {
		return nil, err
	}
	want := z.frameEnd(i) - r.start
	data, err := zdec.DecodeAll(comp, make([]byte, 0, want))
	if err != nil {
		return nil, fmt.Errorf("%s: frame %d: %w: %v", z.path, i, errSealed, err)
	}
	if int64(len(data)) != want || crc32.Checksum(data, castagnoli) != r.sum {
		return nil, fmt.Errorf("%s: frame %d: %w: its bytes do not match the index", z.path, i, errSealed)
	}
	return data, nil
}

// raw is frame i as it is in the file.
func (z *sealedLog) raw(i int) ([]byte, error) {
	r := z.frames[i]
	comp := make([]byte, r.clen)
	f, err := z.acquire()
	if err != nil {
		return nil, err
	}
	defer z.release()
	if _, err := f.ReadAt(comp, r.coff); err != nil {
		return nil, fmt.Errorf("read %s: %w", z.path, err)
	}
	return comp, nil
}

// readAt fills p with the log's bytes at off; off+len(p) <= z.size.
func (z *sealedLog) readAt(p []byte, off int64) error {
	for len(p) > 0 {
		i := z.frameAt(off)
		data, err := z.frame(i)
		if err != nil {
			return err
		}
		n := copy(p, data[off-z.frames[i].start:])
		p, off = p[n:], off+int64(n)
	}
	return nil
}

// sealedWriter writes a sealed file: frames, then the trailer.
type sealedWriter struct {
	w      io.Writer
	frames []frameRef
	at     int64 // log bytes so far
	coff   int64
	buf    []byte
}

// copyFrame writes frame i of z as it is: resealing further keeps what
// was sealed without decoding it.
func (sw *sealedWriter) copyFrame(z *sealedLog, i int) error {
	comp, err := z.raw(i)
	if err != nil {
		return err
	}
	r := z.frames[i]
	return sw.put(comp, z.frameEnd(i)-r.start, r.sum)
}

// addFrame compresses data, whole lines of the log, as the next frame.
func (sw *sealedWriter) addFrame(data []byte) error {
	sw.buf = zenc.EncodeAll(data, sw.buf[:0])
	return sw.put(sw.buf, int64(len(data)), crc32.Checksum(data, castagnoli))
}

func (sw *sealedWriter) put(comp []byte, n int64, sum uint32) error {
	if _, err := sw.w.Write(comp); err != nil {
		return err
	}
	sw.frames = append(sw.frames, frameRef{start: sw.at, coff: sw.coff, clen: uint32(len(comp)), sum: sum})
	sw.at += n
	sw.coff += int64(len(comp))
	return nil
}

// finish writes the trailer.
func (sw *sealedWriter) finish() error {
	t := binary.LittleEndian.AppendUint32(nil, skippableMagic)
	t = binary.LittleEndian.AppendUint32(t, uint32(len(sw.frames)*sealedEntry+sealedFooter))
	for _, r := range sw.frames {
		t = binary.LittleEndian.AppendUint64(t, uint64(r.start))
		t = binary.LittleEndian.AppendUint64(t, uint64(r.coff))
		t = binary.LittleEndian.AppendUint32(t, r.clen)
		t = binary.LittleEndian.AppendUint32(t, r.sum)
	}
	foot := binary.LittleEndian.AppendUint64(nil, uint64(sw.at))
	foot = binary.LittleEndian.AppendUint64(foot, uint64(len(sw.frames)))
	sum := crc32.Update(crc32.Checksum(t[8:], castagnoli), castagnoli, foot)
	foot = binary.LittleEndian.AppendUint32(foot, sum)
	foot = binary.LittleEndian.AppendUint32(foot, sealedVersion)
	foot = append(foot, sealedMagic...)
	_, err := sw.w.Write(append(t, foot...))
	return err
}

// frameLines splits data, whole lines, into frames of about sealFrame
// bytes that end at a line's end (a longer line is a frame of its own).
func frameLines(data []byte) [][]byte {
	var out [][]byte
	for len(data) > 0 {
		n := len(data)
		if n > sealFrame {
			if i := bytes.IndexByte(data[sealFrame-1:], '\n'); i >= 0 {
				n = sealFrame + i
			}
		}
		out = append(out, data[:n])
		data = data[n:]
	}
	return out
}

// isSealedName reports whether a file name of logs/ is a sealed log's.
func isSealedName(name string) (logName string, ok bool) {
	return strings.CutSuffix(name, sealedSuffix)
}

// moveLog renames a log and its sealed file, if any, the log first. A
// crash between the two leaves a sealed file of no log beside it, which
// fsck puts where its log went (checkOrphanLogs).
func moveLog(from, to string) error {
	if err := rename(from, to, 0); err != nil {
		return err
	}
	if err := rename(sealedPath(from), sealedPath(to), 0); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
