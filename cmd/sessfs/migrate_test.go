package main

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// format1Store unpacks the store a sessfs of format 1 wrote
// (testdata/format1, made by its make.sh) into a fresh folder.
func format1Store(t *testing.T) *store {
	t.Helper()
	f, err := os.Open("testdata/format1/store-format1.tar.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	tr := tar.NewReader(zr)
	mtimes := map[string]time.Time{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(root, h.Name)
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.Mkdir(p, os.FileMode(h.Mode).Perm())
		case tar.TypeSymlink:
			err = os.Symlink(h.Linkname, p)
		case tar.TypeReg:
			var b []byte
			if b, err = io.ReadAll(tr); err == nil {
				err = os.WriteFile(p, b, os.FileMode(h.Mode).Perm())
			}
		}
		if err == nil && h.Typeflag != tar.TypeSymlink {
			// A log's time is its branch's last activity.
			mtimes[p] = h.ModTime
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for p, mt := range mtimes { // folders last: filling them moved theirs
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	return &store{t: t, dir: filepath.Join(root, "store")}
}

// checkReadsAsFormat1 holds a migrated store to what sessfs of format 1
// showed of it: every branch's transcript the same, every imported
// session's original file the same bytes as the real session it came
// from.
func checkReadsAsFormat1(t *testing.T, s *store) {
	t.Helper()
	golden, err := filepath.Glob("testdata/format1/expected/*.md")
	if err != nil || len(golden) < 10 {
		t.Fatalf("%d transcripts kept from format 1 (%v)", len(golden), err)
	}
	for _, g := range golden {
		want, _ := os.ReadFile(g)
		name, branch, _ := strings.Cut(strings.TrimSuffix(filepath.Base(g), ".md"), ".")
		if got := s.ok("show", "--branch", branch, name); got != string(want) {
			t.Errorf("%s, branch %s: reads otherwise after the migration:\n%s", name, branch, got)
		}
	}
	_, files := dataFiles(t)
	sources := map[[32]byte]bool{}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		sources[sha256.Sum256(b)] = true
	}
	imported := 0
	for _, sess := range s.sessions(true) {
		r := s.run("export", "--format", "original", sess.Name)
		if r.code != 0 {
			continue // made in sessfs
		}
		imported++
		if !sources[sha256.Sum256([]byte(r.stdout))] {
			t.Errorf("%s: export --format original is not its source's bytes", sess.Name)
		}
	}
	if imported != 8 {
		t.Errorf("%d sessions give their original back, want 8", imported)
	}
}

// A store written by the release of format 1 is refused until it is
// migrated, then reads as that release read it, in less room.
func TestMigrateFormat1(t *testing.T) {
	s := format1Store(t)
	s.fails(1, "sessfs migrate", "", "ls")
	before := logBytes(t, s.dir)
	out := s.ok("migrate")
	if !strings.Contains(out, "from format 1 to 3") {
		t.Fatalf("migrate said %q", out)
	}
	after := logBytes(t, s.dir)
	// Less than the bench's lines gain: hand-made fixtures among the
	// real sessions are kept whole, as they are not compact JSON.
	if after*100 > before*92 {
		t.Errorf("logs %d bytes after, %d before: want at least 8%% less", after, before)
	}
	checkReadsAsFormat1(t, s)
	// Its sessions' sizes are kept, as an import keeps them.
	links, _ := filepath.Glob(filepath.Join(s.dir, "names", "*"))
	for _, l := range links {
		id, _ := os.Readlink(l)
		kept, _ := filepath.Glob(filepath.Join(s.dir, "index", "sizes", filepath.Base(id), "*.*"))
		if len(kept) == 0 {
			t.Errorf("%s: no sizes kept after the migration", filepath.Base(l))
		}
	}
	if len(links) == 0 {
		t.Fatal("no session in names/")
	}
	if out := s.ok("fsck"); !strings.Contains(out, "no problem") {
		t.Errorf("fsck after the migration: %s", out)
	}
	if out := s.ok("migrate"); !strings.Contains(out, "nothing to do") {
		t.Errorf("a second migrate said %q", out)
	}
	// And it goes on as a store of this format: new imports, forks.
	s.ok("fork", "--at", "1", "notes", "after-migration")
	s.fails(1, "no migration under way", "", "migrate", "--abort")
	newStore(t).fails(1, "there is no store at", "", "migrate")
}

func logBytes(t *testing.T, root string) (n int64) {
	t.Helper()
	filepath.Walk(filepath.Join(root, "sessions"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".jsonl") {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// A migration killed at random points (SIGKILL, so nothing of it runs
// after) is finished by the next run, and the store reads as before; one
// killed and then undone with --abort is the store it was, byte for byte.
func TestMigrateKilled(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rnd := rand.New(rand.NewPCG(seed, 1))
	// How long a whole migration takes here, to kill within it.
	whole := format1Store(t)
	t0 := time.Now()
	whole.ok("migrate")
	span := time.Since(t0)

	// Kill runs until one finishes; each killed run leaves what it did
	// for the next (or nothing, killed before it began). A store whose
	// first run was not killed is done again, fresh.
	var original map[string]string
	kills, midway := 0, 0
	for try := 0; midway < 3 && try < 10; try++ {
		s := format1Store(t)
		original = treeOf(t, s.dir)
		for kill(t, s, time.Duration(rnd.Int64N(int64(span)))) && kills < 100 {
			if kills++; migrating(s) {
				midway++
			}
		}
		s.ok("migrate")
		checkReadsAsFormat1(t, s)
	}
	t.Logf("%d runs killed, %d of them midway (a whole run takes %v)", kills, midway, span)
	if midway == 0 {
		t.Fatal("no run was killed midway")
	}

	var u *store
	for try := 0; try < 20 && (u == nil || !migrating(u)); try++ {
		u = format1Store(t) // afresh: a run not killed has migrated it
		kill(t, u, time.Duration(rnd.Int64N(int64(span))))
	}
	if !migrating(u) {
		t.Fatal("no run to undo was killed midway in 20")
	}
	u.ok("migrate", "--abort")
	if got := treeOf(t, u.dir); !maps.Equal(got, original) {
		t.Error("the store after --abort is not the store before the migration")
	}
	u.fails(1, "sessfs migrate", "", "ls")
}

// kill runs sessfs migrate on s and kills it after d; it reports whether
// the run was killed before it finished.
func kill(t *testing.T, s *store, d time.Duration) bool {
	t.Helper()
	cmd := exec.Command(bin, "migrate", "--store", s.dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(d, func() { cmd.Process.Signal(syscall.SIGKILL) })
	err := cmd.Wait()
	timer.Stop()
	if ee, ok := err.(*exec.ExitError); ok && ee.ProcessState.Sys().(syscall.WaitStatus).Signaled() {
		return true
	}
	if err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return false
}

func migrating(s *store) bool {
	_, err := os.Stat(filepath.Join(s.dir, "migrate"))
	return err == nil
}

// treeOf is every entry under root with its kind, mode and bytes; the
// locks are left out (a lock file is made by whoever locks).
func treeOf(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if fi.Name() == "lock" {
			return nil
		}
		v := fi.Mode().String()
		if fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			v += " " + string(b)
		} else if fi.Mode()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			v += " " + target
		}
		out[rel] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A store of format 2 (no sealed log yet) is read as it is: migrate says
// so, with the format the store has, and leaves it.
func TestMigrateFormat2(t *testing.T) {
	s := newStore(t)
	s.ok("new", "x")
	out := s.ok("migrate")
	if !strings.Contains(out, "is of format 2, which this sessfs reads as it is") || !strings.HasSuffix(strings.TrimSpace(out), "nothing to do") {
		t.Errorf("migrate of a format-2 store said %q", out)
	}
	if b, err := os.ReadFile(filepath.Join(s.dir, "FORMAT")); err != nil || !strings.Contains(string(b), "format 2") {
		t.Errorf("FORMAT after: %q, %v", b, err)
	}
}
