package filestore

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"
)

// encodeRecord1 is layout 1's encodeRecord as sessfs shipped it, for
// writing files of that layout in the tests.
func (x *logIndex) encodeRecord1(seed, tail uint32) []byte {
	rec := binary.AppendUvarint(nil, uint64(x.kept))
	rec = binary.AppendUvarint(rec, uint64(x.scanned))
	rec = binary.AppendUvarint(rec, uint64(x.keptMsgs))
	rec = binary.AppendUvarint(rec, uint64(x.lines))
	rec = binary.AppendUvarint(rec, uint64(len(x.msgs)-x.keptMsgs))
	prev := x.kept
	for _, m := range x.msgs[x.keptMsgs:] {
		rec = binary.AppendUvarint(rec, uint64(m.off-prev))
		rec = binary.AppendUvarint(rec, uint64(m.n)<<kindBitsLen|uint64(kindBits(m.Kind)))
		prev = m.end()
	}
	rec = binary.AppendUvarint(rec, uint64(len(x.bad)-x.keptBad))
	prev = x.kept
	for i, b := range x.bad[x.keptBad:] {
		rec = binary.AppendUvarint(rec, uint64(b.Offset-prev))
		rec = binary.AppendUvarint(rec, uint64(b.Line))
		rec = binary.AppendUvarint(rec, uint64(x.badN[x.keptBad+i]))
		prev = b.Offset
	}
	rec = binary.LittleEndian.AppendUint32(rec, tail)
	return binary.LittleEndian.AppendUint32(rec, crc32.Update(seed, crc32.IEEETable, rec))
}

// A kept index of layout 1, as the sessfs before layout 2 wrote it (two
// records, with a bad line), is believed: a fresh process reads none of
// the log, and writes the file anew in layout 2, which the next one
// reads.
func TestKeptIndexLayout1(t *testing.T) {
	st := openStore(t)
	s := mixedLog(t, st)
	path, kept := logPath(t, s, ""), s.keptIndexPath(idOf(t, s, ""))
	x := scanned(t, path)
	head := logIndexHeader("sessfs logindex 1", x.ino) // as it was written
	seed := crc32.ChecksumIEEE(head)
	tail, _, err := tailSum(mustOpen(t, path), x.scanned)
	if err != nil {
		t.Fatal(err)
	}
	// The first record covers the first 20 messages, the second the
	// rest and the bad line.
	const first = 20
	all, bad, lines, scannedTo := x.msgs, x.bad, x.lines, x.scanned
	if len(bad) != 1 || bad[0].Offset < all[first-1].end() {
		t.Fatalf("want the bad line past message %d: %+v", first, bad)
	}
	x.msgs, x.scanned, x.bad = all[:first], all[first-1].end(), nil
	x.lines = linesBefore(t, path, x.scanned)
	tail1, _, _ := tailSum(mustOpen(t, path), x.scanned)
	file := append(head, x.encodeRecord1(seed, tail1)...)
	x.kept, x.keptMsgs, x.keptBad = x.scanned, first, 0
	x.msgs, x.bad, x.lines, x.scanned = all, bad, lines, scannedTo
	file = append(file, x.encodeRecord1(seed, tail)...)
	if err := os.MkdirAll(filepath.Dir(kept), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kept, file, 0o600); err != nil {
		t.Fatal(err)
	}

	got := freshIndex(t, st, "s")
	if got.read != 0 {
		t.Errorf("a fresh index over layout 1 read %d bytes of the log, want 0", got.read)
	}
	sameIndex(t, got, scanned(t, path))
	data, err := os.ReadFile(kept)
	if err != nil || !bytes.HasPrefix(data, []byte(logIndexMagic+" ")) {
		t.Fatalf("the file was not written anew in layout 2: %.40q, %v", data, err)
	}
	again := freshIndex(t, st, "s")
	if again.read != 0 {
		t.Errorf("over the rewritten file, a fresh index read %d bytes of the log", again.read)
	}
	sameIndex(t, again, scanned(t, path))
}

func mustOpen(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// linesBefore counts the log's lines that end at or before off.
func linesBefore(t *testing.T, path string, off int64) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(data[:off], []byte("\n"))
}
