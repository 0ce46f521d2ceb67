package filestore

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sessfs/sessfs/backing"
)

// smallFrames makes frames of about n bytes, for the test: a short log
// has many.
func smallFrames(t *testing.T, n int) {
	old := sealFrame
	sealFrame = n
	t.Cleanup(func() { sealFrame = old })
}

// sealStore is a store that seals only when asked (Seal), anything but
// the last line.
func sealStore(t *testing.T) *Store {
	t.Helper()
	smallFrames(t, 1000)
	st, err := Open(t.TempDir(), Options{Seal: SealOff, SealMin: 1, SealKeep: 1})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// longLog appends n turns of contents of many lengths to branch.
func longLog(t *testing.T, s *Session, branch, prefix string, n int) {
	t.Helper()
	for i := range n {
		if err := s.Append(branch, [][]byte{
			msg("user", fmt.Sprintf("%sq%d %s", prefix, i, strings.Repeat("why ", i%7))),
			msg("assistant", fmt.Sprintf("%sa%d %s", prefix, i, strings.Repeat("because ", i*13%300))),
		}); err != nil {
			t.Fatal(err)
		}
	}
}

func seal(t *testing.T, s *Session, branch string) {
	t.Helper()
	ok, err := s.Seal(idOf(t, s, branch))
	if err != nil || !ok {
		t.Fatalf("seal: %v, %v", ok, err)
	}
}

// logBytes is every byte of the log at path as a fresh reader reads it.
func logBytes(t *testing.T, path string) []byte {
	t.Helper()
	f, err := openLogFile(path, &sealedSource{path: sealedPath(path)})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, f.Size())
	if _, err := f.ReadAt(b, 0); err != nil {
		t.Fatal(err)
	}
	return b
}

// sealedEnd is where the sealed part of the log at path ends.
func sealedEnd(t *testing.T, path string) int64 {
	t.Helper()
	z, err := openSealed(sealedPath(path))
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	return z.size
}

// firstData is the offset of the log's first byte that is kept on disk:
// past a punched hole.
func firstData(t *testing.T, path string) int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	off, err := unix.Seek(int(f.Fd()), 0, unix.SEEK_DATA)
	if err != nil {
		return -1 // all hole
	}
	return off
}

func fsckClean(t *testing.T, st *Store) {
	t.Helper()
	rep, err := st.Fsck(false)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Problems {
		if !p.Note {
			t.Fatalf("fsck: %+v", rep.Problems)
		}
	}
}

// A sealed log reads the bytes it had at every offset and length,
// across frames and across the sealed end, its blocks before that freed;
// sealing further (old frames copied) and appending after keep it so.
func TestSealReadsSame(t *testing.T) {
	st := sealStore(t)
	s := newSession(t, st, "s")
	longLog(t, s, "", "", 60)
	path := logPath(t, s, "")
	plain, _ := os.ReadFile(path)
	msgs := contents(t, s, "")
	if v, _ := readFormat(filepath.Join(st.Root(), "FORMAT")); v != plainFormat {
		t.Errorf("FORMAT says %d before a seal: an older sessfs would refuse a store it can read", v)
	}
	seal(t, s, "")

	S := sealedEnd(t, path)
	z, _ := openSealed(sealedPath(path))
	if S < int64(len(plain))/2 || len(z.frames) < 10 || plain[S-1] != '\n' {
		t.Fatalf("sealed %d of %d bytes in %d frames", S, len(plain), len(z.frames))
	}
	if fd := firstData(t, path); fd < S-4096 {
		t.Errorf("the plain log keeps data from %d, sealed to %d: not punched", fd, S)
	}
	if fi, _ := os.Stat(path); fi.Size() != int64(len(plain)) {
		t.Errorf("the plain log's size changed: %d, was %d", fi.Size(), len(plain))
	}
	f, err := openLogFile(path, &sealedSource{path: sealedPath(path)})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for off := range int64(len(plain)) {
		for _, n := range []int64{1, 2, 3, 17, 999, 1000, 1001, 2500, int64(len(plain))} {
			if n == int64(len(plain)) && off%97 != 0 {
				continue // to the end, from some offsets
			}
			n = min(n, int64(len(plain))-off)
			got := make([]byte, n)
			if _, err := f.ReadAt(got, off); err != nil {
				t.Fatalf("read %d at %d: %v", n, off, err)
			}
			if !bytes.Equal(got, plain[off:off+n]) {
				t.Fatalf("read %d at %d (sealed to %d): %q, want %q", n, off, S, got, plain[off:off+n])
			}
		}
	}
	if got := contents(t, reopen(t, st, "s"), ""); !slices.Equal(got, msgs) {
		t.Fatalf("messages after the seal differ")
	}

	// Appends go on; a second seal copies the first one's frames.
	longLog(t, s, "", "more", 30)
	msgs = contents(t, s, "")
	plain = logBytes(t, path)
	seal(t, s, "")
	if S2 := sealedEnd(t, path); S2 <= S {
		t.Fatalf("sealed to %d, then %d", S, S2)
	}
	if got := logBytes(t, path); !bytes.Equal(got, plain) {
		t.Fatal("the log reads otherwise after the second seal")
	}
	if got := contents(t, reopen(t, st, "s"), ""); !slices.Equal(got, msgs) {
		t.Fatalf("messages after the second seal differ")
	}
	if v, _ := readFormat(filepath.Join(st.Root(), "FORMAT")); v != formatSealed {
		t.Errorf("FORMAT says %d after a seal", v)
	}
	fsckClean(t, st)
}

// A reader that looked for the sealed file before a seal (another
// process) and reads after the punch meets zeros, and reads again.
func TestSealUnderReader(t *testing.T) {
	st := sealStore(t)
	s := newSession(t, st, "s")
	longLog(t, s, "", "", 40)
	path := logPath(t, s, "")
	plain, _ := os.ReadFile(path)
	f, err := openLogFile(path, &sealedSource{path: sealedPath(path)})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seal(t, s, "")
	got := make([]byte, len(plain))
	if _, err := f.ReadAt(got, 0); err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("a reader from before the seal reads otherwise: %v", err)
	}
}

// A fork whose point is in the sealed part of its parent reads the
// parent's messages up to it, and fsck finds the fork point on a line's
// end.
func TestSealFork(t *testing.T) {
	st := sealStore(t)
	s := newSession(t, st, "s")
	longLog(t, s, "", "", 40)
	if _, err := s.Fork("", 11, "x"); err != nil {
		t.Fatal(err)
	}
	longLog(t, s, "x", "x", 3)
	longLog(t, s, "", "late", 3)
	want := contents(t, s, "x")
	seal(t, s, "")
	b, _ := s.Branch("x")
	if S := sealedEnd(t, logPath(t, s, "")); b.ParentOffset >= S {
		t.Fatalf("fork point %d is not in the sealed part (to %d)", b.ParentOffset, S)
	}
	if got := contents(t, reopen(t, st, "s"), "x"); !slices.Equal(got, want) {
		t.Fatalf("fork reads %q, want %q", got, want)
	}
	fsckClean(t, st)
}

// A seal stopped after each of its steps, as a kill would: the log reads
// the same, fsck finds nothing but what a crash leaves, and the next seal
// finishes the work.
func TestSealCrash(t *testing.T) {
	for _, at := range []string{"written", "renamed", "punched"} {
		t.Run(at, func(t *testing.T) {
			st := sealStore(t)
			s := newSession(t, st, "s")
			longLog(t, s, "", "", 40)
			seal(t, s, "") // a second seal copies frames of a first
			longLog(t, s, "", "more", 40)
			path := logPath(t, s, "")
			plain := logBytes(t, path)
			msgs := contents(t, s, "")
			killed := errors.New("killed")
			sealStep = func(what string) error {
				if what == at {
					return killed
				}
				return nil
			}
			defer func() { sealStep = nil }()
			if _, err := s.Seal(idOf(t, s, "")); !errors.Is(err, killed) {
				t.Fatalf("seal: %v", err)
			}
			sealStep = nil
			if got := logBytes(t, path); !bytes.Equal(got, plain) {
				t.Fatal("the log reads otherwise")
			}
			if got := contents(t, reopen(t, st, "s"), ""); !slices.Equal(got, msgs) {
				t.Fatal("messages differ")
			}
			fsckClean(t, st)
			// The next seal tidies up and frees the blocks.
			s2 := reopen(t, st, "s")
			s2.Seal(idOf(t, s2, ""))
			if got := logBytes(t, path); !bytes.Equal(got, plain) {
				t.Fatal("the log reads otherwise after the next seal")
			}
			if fd := firstData(t, path); fd < sealedEnd(t, path)-4096 {
				t.Errorf("blocks from %d not freed", fd)
			}
			if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 2 {
				t.Errorf("logs/ holds %v", ents)
			}
			rep, _ := st.Fsck(false)
			if len(rep.Problems) != 0 {
				t.Fatalf("fsck after: %+v", rep.Problems)
			}
		})
	}
}

// A damaged sealed file is reported by fsck. When the plain log still has
// the bytes (a crash before the punch), repair puts it in quarantine and
// the log reads as before; when it does not, reads fail rather than give
// zeros, and a human is asked.
func TestSealDamaged(t *testing.T) {
	for _, c := range []struct {
		name   string
		punch  bool
		damage func(data []byte) // of the sealed file
	}{
		{"frame", true, func(d []byte) { d[40] ^= 0xff }},
		{"index", true, func(d []byte) { d[len(d)-sealedFooter-5] ^= 1 }},
		{"footer", true, func(d []byte) { d[len(d)-3] = 'x' }},
		{"frame, not punched", false, func(d []byte) { d[40] ^= 0xff }},
		{"footer, not punched", false, func(d []byte) { d[len(d)-3] = 'x' }},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := sealStore(t)
			s := newSession(t, st, "s")
			longLog(t, s, "", "", 40)
			path := logPath(t, s, "")
			plain, _ := os.ReadFile(path)
			msgs := contents(t, s, "")
			if !c.punch {
				sealStep = func(what string) error {
					if what == "renamed" {
						return errors.New("killed")
					}
					return nil
				}
				defer func() { sealStep = nil }()
			}
			s.Seal(idOf(t, s, ""))
			sealStep = nil
			zp := sealedPath(path)
			data, _ := os.ReadFile(zp)
			c.damage(data)
			os.WriteFile(zp, data, 0o600)
			rep, _ := st.Fsck(false)
			if !hasProblem(rep, "sealed start of the log cannot be used") {
				t.Fatalf("fsck: %+v", rep.Problems)
			}
			s2 := reopen(t, st, "s")
			if !c.punch {
				if _, err := st.Fsck(true); err != nil {
					t.Fatal(err)
				}
				fsckClean(t, st)
				if got := contents(t, s2, ""); !slices.Equal(got, msgs) {
					t.Fatal("messages differ after repair")
				}
				if got, _ := os.ReadFile(path); !bytes.Equal(got, plain) {
					t.Fatal("the log changed")
				}
				return
			}
			if rep.Problems[0].Fixable {
				t.Errorf("a repair that loses messages: %+v", rep.Problems)
			}
			v, err := s2.View("")
			if err == nil {
				_, err = v.Read(0, v.Len())
			}
			if err == nil {
				t.Error("the damaged log was read")
			}
		})
	}
}

// The kept message index and the kept sizes of a log stay good across a
// seal: a fresh process believes them and reads none of the log.
func TestSealKeptIndex(t *testing.T) {
	keepAlways(t, 1)
	st := sealStore(t)
	s := mixedLog(t, st)
	longLog(t, s, "", "", 30)
	readBranch(t, s, "")
	id := idOf(t, s, "")
	sizes := make([]uint32, len(readBranch(t, s, "")))
	for i := range sizes {
		sizes[i] = uint32(i)
	}
	keepSizes(t, s, "v1", sizes, 0)
	if x := freshIndex(t, st, "s"); x.read != 0 {
		t.Fatalf("before the seal, a fresh index read %d bytes", x.read)
	}
	seal(t, s, "")
	x := freshIndex(t, st, "s")
	if x.read != 0 {
		t.Errorf("after the seal, a fresh index read %d bytes of the log, want 0", x.read)
	}
	if len(x.bad) != 1 || x.bad[0].Offset >= sealedEnd(t, x.path) {
		t.Fatalf("want the bad line in the sealed part: %+v", x.bad)
	}
	sameIndex(t, x, scanned(t, x.path))
	if got, err := reopen(t, st, "s").KeptSizes(id, "md", "v1"); err != nil || !slices.Equal(got, sizes) {
		t.Errorf("kept sizes after the seal: %v, %v", got, err)
	}
}

// fsck repair blanks a bad line in the sealed part: in a new sealed
// file, the line in quarantine.
func TestSealBlankLine(t *testing.T) {
	st := sealStore(t)
	s := mixedLog(t, st)
	longLog(t, s, "", "", 20)
	msgs := contents(t, s, "")
	path := logPath(t, s, "")
	seal(t, s, "")
	rep, err := st.Fsck(true)
	if err != nil || !hasProblem(rep, "is not a message") || rep.Remaining() != 0 {
		t.Fatalf("fsck repair: %+v, %v", rep.Problems, err)
	}
	fsckClean(t, st)
	if rep, _ := st.Fsck(false); len(rep.Problems) != 0 {
		t.Fatalf("still: %+v", rep.Problems)
	}
	if got := contents(t, reopen(t, st, "s"), ""); !slices.Equal(got, msgs) {
		t.Fatal("messages differ after the repair")
	}
	if !bytes.Contains(logBytes(t, path), []byte("\n             \n")) {
		t.Error("the bad line is not blanked")
	}
	q, _ := os.ReadDir(filepath.Join(s.Dir(), "quarantine"))
	if len(q) != 1 {
		t.Errorf("quarantine holds %v", q)
	}
}

// Appends seal a log by themselves once it is worth it, after the append
// or in the background; a file system that cannot punch gets no seal.
func TestSealAfterAppend(t *testing.T) {
	for _, mode := range []SealMode{SealAfterAppend, SealBackground} {
		smallFrames(t, 1000)
		st, err := Open(t.TempDir(), Options{Seal: mode, SealMin: 20 << 10, SealKeep: 10 << 10})
		if err != nil {
			t.Fatal(err)
		}
		s := newSession(t, st, "s")
		longLog(t, s, "", "", 10)
		st.bg.Wait()
		path := logPath(t, s, "")
		if _, err := os.Stat(sealedPath(path)); err == nil {
			t.Fatalf("mode %d: sealed a short log", mode)
		}
		longLog(t, s, "", "", 60)
		st.bg.Wait()
		fi, _ := os.Stat(path)
		if S := sealedEnd(t, path); S < 20<<10 || S > fi.Size()-10<<10 {
			t.Fatalf("mode %d: sealed to %d of %d", mode, S, fi.Size())
		}
	}
	st, _ := Open(t.TempDir(), Options{Seal: SealAfterAppend, SealMin: 1, SealKeep: 1})
	st.punch.Store(2)
	s := newSession(t, st, "s")
	longLog(t, s, "", "", 10)
	if _, err := os.Stat(sealedPath(logPath(t, s, ""))); err == nil {
		t.Fatal("sealed where holes cannot be punched")
	}
}

// A branch's sealed file moves with its log: to the trash when the
// branch is deleted, back when fsck restores it as a parent, and fsck
// puts one a crash left behind where its log went.
func TestSealBranchTrash(t *testing.T) {
	st := sealStore(t)
	s := newSession(t, st, "s")
	appendTurns(t, s, "", "", 1)
	x, err := s.Fork("", backing.Head, "x")
	if err != nil {
		t.Fatal(err)
	}
	longLog(t, s, "x", "x", 30)
	y, err := s.Fork(x.ID, 20, "y")
	if err != nil {
		t.Fatal(err)
	}
	seal(t, s, "x")
	want := contents(t, s, "y")
	dir := s.Dir()
	os.Mkdir(filepath.Join(dir, "trash"), 0o700)
	for _, mv := range [][2]string{{"branches", ".json"}, {"logs", ".jsonl"}, {"logs", ".jsonl.zst"}} {
		if err := os.Rename(filepath.Join(dir, mv[0], x.ID+mv[1]), filepath.Join(dir, "trash", x.ID+mv[1])); err != nil {
			t.Fatal(err)
		}
	}
	if rep, _ := st.Fsck(true); !hasProblem(rep, "repair restores it") || rep.Remaining() != 0 {
		t.Fatalf("fsck: %+v", rep.Problems)
	}
	if got := contents(t, reopen(t, st, "s"), "y"); !slices.Equal(got, want) {
		t.Fatalf("y reads %q after its parent came back, want %q", got, want)
	}
	fsckClean(t, st)

	s = reopen(t, st, "s")
	if err := s.DeleteBranch(y.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteBranch(x.ID); err != nil {
		t.Fatal(err)
	}
	zt, zl := filepath.Join(dir, "trash", x.ID+".jsonl.zst"), filepath.Join(dir, "logs", x.ID+".jsonl.zst")
	if _, err := os.Stat(zt); err != nil {
		t.Fatal(err)
	}
	os.Rename(zt, zl) // a crash between the renames of the delete
	if rep, _ := st.Fsck(true); !hasProblem(rep, "went to the session's trash without it") || rep.Remaining() != 0 {
		t.Fatalf("fsck: %+v", rep.Problems)
	}
	if _, err := os.Stat(zt); err != nil {
		t.Fatal(err)
	}
}

// A seal keeps the log's index, however short the log: a fresh process
// (a mount after an import, which seals every session it stores) reads
// none of the log to list its messages, where it would otherwise
// decompress the sealed part to scan it.
func TestSealKeepsIndex(t *testing.T) {
	st, err := Open(t.TempDir(), Options{Seal: SealAfterAppend, SealMin: 1 << 10, SealKeep: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	s := newSession(t, st, "s")
	longLog(t, s, "", "", 20)
	path := logPath(t, s, "")
	fi, _ := os.Stat(path)
	if fi.Size() >= keepEvery || sealedEnd(t, path) == 0 {
		t.Fatalf("the log is %d bytes, sealed to %d: want a sealed log shorter than keepEvery", fi.Size(), sealedEnd(t, path))
	}
	if x := freshIndex(t, st, "s"); x.read != 0 || len(x.msgs) != 40 {
		t.Errorf("a fresh index read %d bytes of the log for %d messages, want 0 for 40", x.read, len(x.msgs))
	}
}
