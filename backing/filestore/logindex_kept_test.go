package filestore

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// keepAlways has every scan and append keep the index, for the test.
func keepAlways(t *testing.T, every int64) {
	old := keepEvery
	keepEvery = every
	t.Cleanup(func() { keepEvery = old })
}

// mixedLog fills the default branch of a new session with every kind of
// line the index tells apart: prompts, answers, context, events (typed
// and imported), a blank line and a bad one.
func mixedLog(t *testing.T, st *Store) *Session {
	t.Helper()
	s := newSession(t, st, "s")
	for i := range 20 {
		if err := s.Append("", [][]byte{
			[]byte(fmt.Sprintf(`{"role":"user","context":"instructions","content":"ctx %d"}`, i)),
			msg("user", fmt.Sprintf("q%d", i)),
			[]byte(`{"role":"event","event":"turn_end","content":""}`),
			msg("assistant", fmt.Sprintf("a%d %s", i, strings.Repeat("x", 200))),
			[]byte(`{"role":"event","event":"x","source_seq":3,"content":""}`),
		}); err != nil {
			t.Fatal(err)
		}
		if i == 5 {
			appendRaw(t, logPath(t, s, ""), "\nnot a message\n")
			readBranch(t, s, "") // the writer's index follows again
		}
	}
	return s
}

// freshIndex is the index of the default branch of session name as a new
// process builds it, and how many bytes of the log it read.
func freshIndex(t *testing.T, st *Store, name string) *logIndex {
	t.Helper()
	s := reopen(t, st, name)
	x := s.logIndex(idOf(t, s, ""))
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.refresh(); err != nil {
		t.Fatal(err)
	}
	return x
}

// scanned is the index of the log at path built by reading all of it.
func scanned(t *testing.T, path string) *logIndex {
	t.Helper()
	x := newLogIndex(path, "")
	if err := x.refresh(); err != nil {
		t.Fatal(err)
	}
	return x
}

// sameIndex fails unless got holds what a scan of the whole log gives.
func sameIndex(t *testing.T, got, want *logIndex) {
	t.Helper()
	if !reflect.DeepEqual(got.msgs, want.msgs) || !reflect.DeepEqual(got.marks, want.marks) ||
		got.lines != want.lines || got.scanned != want.scanned || got.ino != want.ino {
		t.Fatalf("index differs from a scan: %d msgs, %d lines, to %d, marks %+v; want %d, %d, %d, %+v",
			len(got.msgs), got.lines, got.scanned, got.marks, len(want.msgs), want.lines, want.scanned, want.marks)
	}
	if len(got.bad) != len(want.bad) {
		t.Fatalf("bad lines %v, want %v", got.bad, want.bad)
	}
	for i := range got.bad {
		g, w := got.bad[i], want.bad[i]
		if g.Offset != w.Offset || g.Line != w.Line || g.Err.Error() != w.Err.Error() {
			t.Fatalf("bad line %d: %+v, want %+v", i, g, w)
		}
	}
}

// A fresh process reads the kept index and none of the log: same
// messages, kinds, turns, events and bad lines as a scan; then what
// another writer appended past it, and only that.
func TestKeptIndexFresh(t *testing.T) {
	keepAlways(t, 1)
	st := openStore(t)
	s := mixedLog(t, st)
	path := logPath(t, s, "")
	// Appends kept the index; the raw bad line is kept by the next scan.
	readBranch(t, s, "")
	x := freshIndex(t, st, "s")
	if x.read != 0 {
		t.Errorf("a fresh index read %d bytes of the log, want 0", x.read)
	}
	want := scanned(t, path)
	sameIndex(t, x, want)
	if len(x.bad) != 1 || len(x.marks.Prompts) != 20 || len(x.marks.Typed) != 20 || x.marks.Turns[0] != 0 {
		t.Fatalf("the log is not the mix wanted: %d bad, marks %+v", len(x.bad), x.marks)
	}

	// Another writer's lines, not kept: a fresh process reads them only.
	keepEvery = 1 << 40
	tail := string(msg("user", "late")) + "\n"
	appendRaw(t, path, tail)
	x = freshIndex(t, st, "s")
	if x.read != int64(len(tail)) {
		t.Errorf("read %d bytes of the log, want the %d of its tail", x.read, len(tail))
	}
	sameIndex(t, x, scanned(t, path))
}

// A crash between an append and the write of the index that covers it:
// the index lags, and a fresh process scans what it lacks.
func TestKeptIndexCrashBeforeKeep(t *testing.T) {
	keepAlways(t, 1)
	st := openStore(t)
	s := mixedLog(t, st)
	path := logPath(t, s, "")
	fi, _ := os.Stat(path)
	keepEvery = 1 << 40 // these appends are "lost" before their keep
	appendTurns(t, s, "", "more", 3)
	fi2, _ := os.Stat(path)
	x := freshIndex(t, st, "s")
	if x.read != fi2.Size()-fi.Size() {
		t.Errorf("read %d bytes of the log, want the %d appended since the keep", x.read, fi2.Size()-fi.Size())
	}
	sameIndex(t, x, scanned(t, path))
}

// What must never be believed: a log replaced, cut back, cut back and
// grown again past the old end, a kept index of another layout, one whose
// bad line is now a message (changed in place). Each is scanned whole and
// the index kept anew; a torn record loses only itself.
func TestKeptIndexStale(t *testing.T) {
	for _, tc := range []struct {
		name     string
		change   func(t *testing.T, st *Store, log, kept string)
		scanAll  bool // a fresh index must read the whole log
		wantMsgs int  // messages after the change (100 before)
	}{
		{"replaced", func(t *testing.T, st *Store, log, kept string) {
			data, _ := os.ReadFile(log)
			os.WriteFile(log+".new", data, 0o600) // another inode
			os.Rename(log+".new", log)
		}, true, 100},
		{"replaced, its inode reused", func(t *testing.T, st *Store, log, kept string) {
			data, _ := os.ReadFile(log)
			os.Remove(log) // ext4 hands the inode out again at once
			os.WriteFile(log, bytes.ReplaceAll(data, []byte("late"), []byte("LATE")), 0o600)
		}, true, 100},
		{"cut back", func(t *testing.T, st *Store, log, kept string) {
			os.Truncate(log, msgEnd(t, log, 49))
		}, true, 50},
		{"cut back and grown past", func(t *testing.T, st *Store, log, kept string) {
			// Other lines up to the old end exactly, a newline before it
			// as before: only the bytes tell.
			fi, _ := os.Stat(log)
			cut := msgEnd(t, log, 49)
			os.Truncate(log, cut)
			pad := fi.Size() - cut - int64(len(msg("assistant", ""))) - 1
			appendRaw(t, log, string(msg("assistant", strings.Repeat("o", int(pad))))+"\n"+string(msg("user", "past"))+"\n")
		}, true, 52},
		{"layout version", func(t *testing.T, st *Store, log, kept string) {
			data, _ := os.ReadFile(kept)
			os.WriteFile(kept, bytes.Replace(data, []byte(logIndexMagic), []byte("sessfs logindex 0"), 1), 0o600)
		}, true, 100},
		{"another classifier", func(t *testing.T, st *Store, log, kept string) {
			data, _ := os.ReadFile(kept)
			os.WriteFile(kept, bytes.Replace(data, []byte(kindStamp), []byte("00000000"), 1), 0o600)
		}, true, 100},
		{"bad line mended in place", func(t *testing.T, st *Store, log, kept string) {
			data, _ := os.ReadFile(log)
			i := bytes.Index(data, []byte(badLine))
			f, _ := os.OpenFile(log, os.O_WRONLY, 0)
			f.WriteAt([]byte("}"), int64(i+len(badLine)-1))
			f.Close()
		}, true, 101},
		{"bad line blanked by repair", func(t *testing.T, st *Store, log, kept string) {
			rep, err := st.Fsck(true)
			if err != nil || len(rep.Problems) != 1 || !rep.Problems[0].Repaired {
				t.Fatalf("fsck repair: %+v, %v", rep.Problems, err)
			}
		}, false, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keepAlways(t, 1)
			st := openStore(t)
			s := newSession(t, st, "s")
			appendTurns(t, s, "", "", 10)
			appendRaw(t, logPath(t, s, ""), badLine+"\n")
			readBranch(t, s, "")
			appendTurns(t, s, "", "late", 40)
			log, kept := logPath(t, s, ""), s.keptIndexPath(idOf(t, s, ""))
			if _, err := os.Stat(kept); err != nil {
				t.Fatalf("no kept index: %v", err)
			}
			tc.change(t, st, log, kept)
			x := freshIndex(t, st, "s")
			fi, _ := os.Stat(log)
			if tc.scanAll && x.read != fi.Size() {
				t.Errorf("read %d bytes of a log of %d: the kept index was believed", x.read, fi.Size())
			}
			sameIndex(t, x, scanned(t, log))
			if tc.wantMsgs >= 0 && len(x.msgs) != tc.wantMsgs {
				t.Errorf("%d messages, want %d", len(x.msgs), tc.wantMsgs)
			}
			// It was kept anew: the next fresh process reads nothing.
			if x := freshIndex(t, st, "s"); x.read != 0 {
				t.Errorf("after a rescan, a fresh index read %d bytes of the log", x.read)
			}
		})
	}
}

// badLine is a message but for its last byte: mending it in place makes
// one of it.
const badLine = `{"role":"user","content":"hi" `

// msgEnd is where message i of the log ends, past its newline.
func msgEnd(t *testing.T, log string, i int) int64 {
	t.Helper()
	return scanned(t, log).msgs[i].end()
}

// A torn record (a crash in the middle of its write) loses only itself:
// the records before it hold, the log past them is scanned, and the file
// is written anew.
func TestKeptIndexTornRecord(t *testing.T) {
	keepAlways(t, 1)
	st := openStore(t)
	s := newSession(t, st, "s")
	appendTurns(t, s, "", "", 10) // a record per append
	log, kept := logPath(t, s, ""), s.keptIndexPath(idOf(t, s, ""))
	fi, _ := os.Stat(kept)
	os.Truncate(kept, fi.Size()-2)
	x := freshIndex(t, st, "s")
	lfi, _ := os.Stat(log)
	if want := lfi.Size() - msgEnd(t, log, 17); x.read != want {
		t.Errorf("read %d bytes of the log, want the %d of the torn record's turn", x.read, want)
	}
	sameIndex(t, x, scanned(t, log))
	if x := freshIndex(t, st, "s"); x.read != 0 || x.keptRecs != 1 {
		t.Errorf("after the tear, a fresh index read %d bytes of the log from %d records; want 0 from 1", x.read, x.keptRecs)
	}
}

// An append with ids after a fresh process loaded the kept index still
// finds a retry: the id set is built from the log, not left empty.
func TestKeptIndexRetry(t *testing.T) {
	keepAlways(t, 1)
	st := openStore(t)
	s := newSession(t, st, "s")
	m := []byte(`{"id":"m1","role":"user","content":"once"}`)
	if err := s.Append("", [][]byte{m}); err != nil {
		t.Fatal(err)
	}
	appendTurns(t, s, "", "", 3)
	s2 := reopen(t, st, "s")
	if err := s2.Append("", [][]byte{m}); err != nil {
		t.Fatal(err)
	}
	if got := contents(t, reopen(t, st, "s"), ""); len(got) != 7 {
		t.Fatalf("a retry after a fresh load was stored again: %q", got)
	}
}

// A session purged forgets its kept indexes; a branch removed, its own.
func TestKeptIndexDropped(t *testing.T) {
	keepAlways(t, 1)
	st := openStore(t)
	s := newSession(t, st, "s")
	appendTurns(t, s, "", "", 2)
	b, err := s.Fork(idOf(t, s, ""), backing.Head, "f")
	if err != nil {
		t.Fatal(err)
	}
	appendTurns(t, s, "f", "f", 2)
	readBranch(t, s, "f")
	kept := s.keptIndexPath(b.ID)
	if _, err := os.Stat(kept); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteBranch(b.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(kept); !os.IsNotExist(err) {
		t.Errorf("a removed branch's kept index is still there: %v", err)
	}
}

// Every field of backing.Kind has a bit in the kept index: a field added
// needs one, and a new layout version.
func TestKeptKindBits(t *testing.T) {
	if n := reflect.TypeOf(backing.Kind{}).NumField(); n != kindBitsLen {
		t.Fatalf("backing.Kind has %d fields, the kept index %d bits: add one and bump logIndexMagic", n, kindBitsLen)
	}
	for b := range uint8(1 << kindBitsLen) {
		if got := kindBits(kindOfBits(b)); got != b {
			t.Errorf("bits %04b come back as %04b", b, got)
		}
	}
}

// fsck reads the log, not its kept index: a message damaged in place
// after the index was kept (a disk's doing) is found all the same.
func TestKeptIndexFsckReadsLog(t *testing.T) {
	keepAlways(t, 1)
	st := openStore(t)
	s := newSession(t, st, "s")
	appendTurns(t, s, "", "", 40)
	log := logPath(t, s, "")
	f, err := os.OpenFile(log, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte("#"), msgEnd(t, log, 3)) // message 4's '{'
	f.Close()
	rep, err := reopen(t, st, "s").st.Fsck(false)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].What, "line 5 ") {
		t.Fatalf("fsck over a kept index: %+v, want line 5 found not a message", rep.Problems)
	}
}

// BenchmarkFirstIndex builds a log's index as a fresh process does, from
// the kept index ("kept") and by reading the log ("scan"): kept reads no
// byte of the log (logbytes/op) and costs a few bytes a message, where a
// scan reads every byte. Run with:
//
//	go test -run '^$' -bench FirstIndex ./backing/filestore/
func BenchmarkFirstIndex(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		st, err := Open(b.TempDir(), Options{})
		if err != nil {
			b.Fatal(err)
		}
		c, _, err := st.Create("s", backing.Meta{})
		if err != nil {
			b.Fatal(err)
		}
		s := c.(*Session)
		// Messages of 400 bytes, as a real session's are on average.
		var buf []byte
		for i := range n {
			buf = fmt.Appendf(buf, `{"role":"%s","content":"%d %s"}`+"\n", []string{"user", "assistant"}[i%2], i, strings.Repeat("x", 360))
		}
		id, _ := s.Branch("")
		if err := os.WriteFile(s.logFile(id.ID), buf, 0o600); err != nil {
			b.Fatal(err)
		}
		if _, err := s.view(id); err != nil { // scans, and keeps the index
			b.Fatal(err)
		}
		for _, how := range []string{"kept", "scan"} {
			b.Run(fmt.Sprintf("messages=%d/%s", n, how), func(b *testing.B) {
				var read int64
				for range b.N {
					keptPath := s.keptIndexPath(id.ID)
					if how == "scan" {
						keptPath = ""
					}
					x := newLogIndex(s.logFile(id.ID), keptPath)
					if err := x.refresh(); err != nil {
						b.Fatal(err)
					}
					if len(x.msgs) != n {
						b.Fatalf("%d messages, want %d", len(x.msgs), n)
					}
					read += x.read
				}
				b.ReportMetric(float64(read)/float64(b.N), "logbytes/op")
			})
		}
	}
}

// A record of layout 2 whose CRC holds but whose messages no writer makes
// (past the record's end, of unknown kind bits) is not believed, and
// leaves the caller's messages as they were; a message before the one it
// follows is not kept at all.
func TestKeptRecordChecked(t *testing.T) {
	x := &logIndex{scanned: 100, lines: 2, msgs: []msgRef{{off: 0, n: 40}, {off: 41, n: 40}}}
	seed := uint32(7)
	good, err := x.encodeRecord(seed, 0)
	k := streamOf(good)
	if _, msgs, ok := decodeRecord(k, seed, nil); err != nil || !ok || !k.atEnd() || len(msgs) != 2 {
		t.Fatalf("a good record: %d messages, all read %v, ok %v, %v", len(msgs), k.atEnd(), ok, err)
	}
	last := len(good) - 8 - refLen // the last message's bytes
	for _, tc := range []struct {
		name  string
		patch func(rec []byte)
	}{
		{"a gap past its end", func(rec []byte) { binary.LittleEndian.PutUint32(rec[last:], 20) }},
		{"a length past its end", func(rec []byte) { binary.LittleEndian.PutUint32(rec[last+4:], 60) }},
		{"unknown kind bits", func(rec []byte) { rec[last+8] = 1 << kindBitsLen }},
	} {
		rec := slices.Clone(good)
		tc.patch(rec)
		binary.LittleEndian.PutUint32(rec[len(rec)-4:], crc32.Update(seed, crc32.IEEETable, rec[:len(rec)-4]))
		before := []msgRef{{off: 1}}
		if _, msgs, ok := decodeRecord(streamOf(rec), seed, before); ok || len(msgs) != 1 || msgs[0] != before[0] {
			t.Errorf("%s: believed (%v), or the caller's messages changed: %v", tc.name, ok, msgs)
		}
	}
	x.msgs = []msgRef{{off: 41, n: 40}, {off: 0, n: 40}}
	if _, err := x.encodeRecord(seed, 0); err == nil {
		t.Error("messages out of order were encoded")
	}
}

// Records longer than the stream's buffer load whole; one torn in the
// middle of its messages loses only itself: the log past the records
// before it is scanned.
func TestKeptIndexLongRecords(t *testing.T) {
	keepAlways(t, 1)
	st := openStore(t)
	s := newSession(t, st, "s")
	const batch = 2 * keptChunk / refLen // a record twice the buffer
	for b := range 2 {
		var lines [][]byte
		for i := range batch {
			lines = append(lines, msg([]string{"user", "assistant"}[i%2], fmt.Sprintf("%d.%d", b, i)))
		}
		if err := s.Append("", lines); err != nil { // a record each
			t.Fatal(err)
		}
	}
	path, kept := logPath(t, s, ""), s.keptIndexPath(idOf(t, s, ""))
	x := freshIndex(t, st, "s")
	if x.read != 0 || x.keptRecs != 2 {
		t.Fatalf("read %d bytes of the log from %d records, want 0 from 2", x.read, x.keptRecs)
	}
	sameIndex(t, x, scanned(t, path))

	fi, _ := os.Stat(kept)
	os.Truncate(kept, fi.Size()-keptChunk) // into the second record's messages
	x = freshIndex(t, st, "s")
	lfi, _ := os.Stat(path)
	if want := lfi.Size() - msgEnd(t, path, batch-1); x.read != want {
		t.Errorf("read %d bytes of the log, want the %d of the torn record", x.read, want)
	}
	sameIndex(t, x, scanned(t, path))
}

func streamOf(b []byte) *keptStream { return newKeptStream(bytes.NewReader(b), int64(len(b))) }
