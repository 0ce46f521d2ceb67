package filestore

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// The names folder is held open after the first lookup. A folder moved
// into its place afterwards (by hand, a restore from a backup) is the one
// lookups see from the first name found in it: the folder held is let go.
func TestNamesFolderReplaced(t *testing.T) {
	st := openStore(t)
	newSession(t, st, "old")
	if _, _, err := st.Lookup("old"); err != nil {
		t.Fatal(err)
	}
	names := filepath.Join(st.Root(), "names")
	if err := os.Rename(names, names+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(names, dirMode); err != nil {
		t.Fatal(err)
	}
	newSession(t, st, "new")
	if _, _, err := st.Lookup("new"); err != nil {
		t.Fatalf("a session of the folder now at names/: %v", err)
	}
	if _, _, err := st.Lookup("old"); !errors.Is(err, backing.ErrNotFound) {
		t.Fatalf("a session of the folder moved away: %v, want ErrNotFound", err)
	}
}

// A link put in the place of the names folder after it was opened is not
// followed: the folder held is the store's own.
func TestNamesFolderLinkedAfterOpen(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "mine")
	if _, _, err := st.Lookup("mine"); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	if err := os.Symlink(filepath.Join("..", "sessions", s.ID()), filepath.Join(outside, "planted")); err != nil {
		t.Fatal(err)
	}
	names := filepath.Join(st.Root(), "names")
	if err := os.Rename(names, names+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, names); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Lookup("planted"); err == nil {
		t.Fatal("a name found through a link in place of names/")
	}
	if got, _, err := st.Lookup("mine"); err != nil || got.ID() != s.ID() {
		t.Fatalf("the held folder's session: %v", err)
	}
}

// LastAppend is the newest time a log of any branch was appended to: not a
// sealed file's, nor a temporary's.
func TestLastAppend(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "s")
	if err := s.Append("", [][]byte{[]byte(`{"role":"user","content":"a"}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Fork("", 1, "x"); err != nil {
		t.Fatal(err)
	}
	if err := s.Append("x", [][]byte{[]byte(`{"role":"user","content":"b"}`)}); err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC)
	touch := func(path string, at time.Time) {
		t.Helper()
		if err := os.Chtimes(path, at, at); err != nil {
			t.Fatal(err)
		}
	}
	check := func(want time.Time) {
		t.Helper()
		got, err := s.LastAppend()
		if err != nil || !got.Equal(want) {
			t.Fatalf("LastAppend = %v, %v; want %v", got, err, want)
		}
	}
	touch(logPath(t, s, ""), base)
	touch(logPath(t, s, "x"), base.Add(time.Minute))
	check(base.Add(time.Minute))
	touch(logPath(t, s, ""), base.Add(time.Hour))
	check(base.Add(time.Hour))
	for _, name := range []string{tmpPrefix + "y.jsonl", "y.jsonl.zst"} {
		p := filepath.Join(s.Dir(), "logs", name)
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		touch(p, base.Add(2*time.Hour))
	}
	check(base.Add(time.Hour))
}
