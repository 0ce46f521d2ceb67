package filestore

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// keptSizes is KeptSizes of the default branch in format "md", failing
// the test on an error.
func keptSizes(t *testing.T, s *Session, stamp string) []uint32 {
	t.Helper()
	got, err := s.KeptSizes(idOf(t, s, ""), "md", stamp)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func keepSizes(t *testing.T, s *Session, stamp string, sizes []uint32, kept int) {
	t.Helper()
	if err := s.KeepSizes(idOf(t, s, ""), "md", stamp, sizes, kept); err != nil {
		t.Fatal(err)
	}
}

// Kept sizes come back as kept, grow by appends, and are read by another
// process; none are kept at first.
func TestSizesKept(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "s")
	appendTurns(t, s, "", "", 3) // 6 messages
	if got := keptSizes(t, s, "v1"); got != nil {
		t.Fatalf("sizes before any were kept: %v", got)
	}
	keepSizes(t, s, "v1", []uint32{10, 20, 30, 40}, 0)
	keepSizes(t, s, "v1", []uint32{10, 20, 30, 40, 50, 60}, 4)
	want := []uint32{10, 20, 30, 40, 50, 60}
	if got := keptSizes(t, s, "v1"); !slices.Equal(got, want) {
		t.Fatalf("kept %v, want %v", got, want)
	}
	// Two writers that both add the same sizes: the repeat is skipped.
	keepSizes(t, s, "v1", []uint32{10, 20, 30, 40, 50, 60}, 4)
	if got := keptSizes(t, reopen(t, st, "s"), "v1"); !slices.Equal(got, want) {
		t.Fatalf("another process reads %v, want %v", got, want)
	}
	// Sizes of more messages than the log has are refused.
	if err := s.KeepSizes(idOf(t, s, ""), "md", "v1", make([]uint32, 7), 6); err == nil {
		t.Error("kept sizes of 7 messages of a log of 6")
	}
	for _, format := range []string{"../x", "", ".md"} {
		if err := s.KeepSizes(idOf(t, s, ""), format, "v1", want, 0); err == nil {
			t.Errorf("format %q was taken", format)
		}
	}
}

// What is stale is forgotten: another stamp, a log replaced or cut back
// past the sizes, a torn record (cut off, the rest kept).
func TestSizesStale(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "s")
	appendTurns(t, s, "", "", 3)
	path, err := s.sizesPath(idOf(t, s, ""), "md")
	if err != nil {
		t.Fatal(err)
	}
	sizes := []uint32{1, 2, 3, 4, 5, 6}

	keepSizes(t, s, "v1", sizes[:4], 0)
	if got := keptSizes(t, s, "v2"); got != nil {
		t.Errorf("sizes of another stamp: %v", got)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("stale sizes left on disk: %v", err)
	}

	// A torn record: what was before it stays, and an append after is read.
	keepSizes(t, s, "v1", sizes[:4], 0)
	keepSizes(t, s, "v1", sizes[:5], 4)
	fi, _ := os.Stat(path)
	if err := os.Truncate(path, fi.Size()-1); err != nil {
		t.Fatal(err)
	}
	if got := keptSizes(t, s, "v1"); !slices.Equal(got, sizes[:4]) {
		t.Errorf("after a torn record: %v, want %v", got, sizes[:4])
	}
	keepSizes(t, s, "v1", sizes, 4)
	if got := keptSizes(t, s, "v1"); !slices.Equal(got, sizes) {
		t.Errorf("after an append past a torn record: %v, want %v", got, sizes)
	}

	// The log cut back past the sizes (a repair), then grown again with
	// other messages: the sizes past the cut are stale.
	log := logPath(t, s, "")
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	cut := 0
	for i, c := range data {
		if c == '\n' {
			if lines++; lines == 4 {
				cut = i + 1
			}
		}
	}
	if err := os.Truncate(log, int64(cut)); err != nil {
		t.Fatal(err)
	}
	appendRaw(t, log, string(msg("user", "a longer question than before"))+"\n"+string(msg("assistant", "and its answer"))+"\n")
	if got := keptSizes(t, s, "v1"); !slices.Equal(got, sizes[:4]) {
		t.Errorf("after the log was cut back to 4 messages and grew to 6 again: %v, want %v", got, sizes[:4])
	}

	// The log replaced (a migration rewrote it): nothing is kept.
	if err := os.WriteFile(log+".new", data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(log+".new", log); err != nil {
		t.Fatal(err)
	}
	if got := keptSizes(t, s, "v1"); got != nil {
		t.Errorf("sizes of a log that was replaced: %v", got)
	}
}

// A session purged from the trash takes its kept sizes with it.
func TestSizesPurged(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "s")
	appendTurns(t, s, "", "", 1)
	keepSizes(t, s, "v1", []uint32{1, 2}, 0)
	if err := st.Trash("s"); err != nil {
		t.Fatal(err)
	}
	if err := st.purge(s.ID()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(st.path("index", "sizes", s.ID())); !os.IsNotExist(err) {
		t.Errorf("kept sizes outlive their session: %v", err)
	}
}

// A branch removed takes its kept sizes, of every format, with it; the
// default branch's stay.
func TestSizesBranchRemoved(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "s")
	appendTurns(t, s, "", "", 1)
	b, err := s.Fork(idOf(t, s, ""), backing.Head, "f")
	if err != nil {
		t.Fatal(err)
	}
	appendTurns(t, s, "f", "f", 1)
	for _, format := range []string{"md", "html"} {
		if err := s.KeepSizes(b.ID, format, "v1", []uint32{1, 2}, 0); err != nil {
			t.Fatal(err)
		}
	}
	keepSizes(t, s, "v1", []uint32{1, 2}, 0)
	if err := s.DeleteBranch(b.ID); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(st.path("index", "sizes", s.ID(), "*"))
	if len(left) != 1 || filepath.Base(left[0]) != idOf(t, s, "")+".md" {
		t.Errorf("kept sizes after the branch went: %v", left)
	}
}

// sizesRecord1 is a record of layout 1 as sessfs wrote it, for the tests.
func sizesRecord1(seed uint32, sizes []uint32, from int, end int64) []byte {
	rec := binary.AppendUvarint(nil, uint64(from))
	rec = binary.AppendUvarint(rec, uint64(len(sizes)-from))
	for _, v := range sizes[from:] {
		rec = binary.AppendUvarint(rec, uint64(v))
	}
	rec = binary.AppendUvarint(rec, uint64(end))
	return binary.LittleEndian.AppendUint32(rec, crc32.Update(seed, crc32.IEEETable, rec))
}

// A file of sizes of layout 1, as the sessfs before layout 2 wrote it
// (two records, sizes of one byte and of three), is read, written anew
// in layout 2, and grows by appends of that layout.
func TestSizesLayout1(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "s")
	appendTurns(t, s, "", "", 3)
	id := idOf(t, s, "")
	path, err := s.sizesPath(id, "md")
	if err != nil {
		t.Fatal(err)
	}
	ino, ends, err := s.logNow(id)
	if err != nil {
		t.Fatal(err)
	}
	want := []uint32{10, 20000, 30, 40}
	head := []byte(fmt.Sprintf("sessfs sizes 1 %d v1\n", ino)) // as it was written
	seed := crc32.ChecksumIEEE(head)
	end1, _ := ends(1)
	end3, _ := ends(3)
	file := append(append(head, sizesRecord1(seed, want[:2], 0, end1)...), sizesRecord1(seed, want, 2, end3)...)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, file, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := keptSizes(t, s, "v1"); !slices.Equal(got, want) {
		t.Fatalf("from layout 1: %v, want %v", got, want)
	}
	if data, _ := os.ReadFile(path); !bytes.HasPrefix(data, []byte(sizesMagic+" ")) {
		t.Fatalf("not written anew in layout 2: %.30q", data)
	}
	want = append(want, 50, 60)
	keepSizes(t, s, "v1", want, 4)
	if got := keptSizes(t, reopen(t, st, "s"), "v1"); !slices.Equal(got, want) {
		t.Fatalf("after an append: %v, want %v", got, want)
	}
}

// A record of sizes longer than the stream's buffer reads whole.
func TestSizesLongRecord(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "s")
	n := 2 * keptChunk / 4
	lines := make([][]byte, n)
	want := make([]uint32, n)
	for i := range lines {
		lines[i] = msg("user", fmt.Sprint(i))
		want[i] = uint32(i * 7)
	}
	if err := s.Append("", lines); err != nil {
		t.Fatal(err)
	}
	keepSizes(t, s, "v1", want[:n/2], 0)
	keepSizes(t, s, "v1", want, n/2)
	if got := keptSizes(t, reopen(t, st, "s"), "v1"); !slices.Equal(got, want) {
		t.Fatalf("%d sizes read back, want %d, or they differ", len(got), len(want))
	}
}
