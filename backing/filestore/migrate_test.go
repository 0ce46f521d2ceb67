package filestore

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

const migratePad = `,"pad":"` + "................................................................" + `"`

// unpad is the test's format change: lines lose their "pad", so every
// line after a padded one starts earlier in its log and fork points move.
func unpad(line []byte) []byte { return bytes.Replace(line, []byte(migratePad), nil, 1) }

func padded(role, content string) []byte {
	return []byte(`{"role":"` + role + `","content":"` + content + `"` + migratePad + `}`)
}

// oldStore makes a store of "format 1": padded lines in two sessions,
// branches forked from branches, one removed to the session's trash, a
// torn last line; and returns what each branch reads.
func oldStore(t *testing.T) (root string, want map[string][]string) {
	t.Helper()
	st := openStore(t)
	s := newSession(t, st, "s")
	add := func(branch, prefix string, n int) {
		for i := range n {
			if err := s.Append(branch, [][]byte{padded("user", prefix+"q"+string(rune('0'+i))), msg("assistant", prefix+"a")}); err != nil {
				t.Fatal(err)
			}
		}
	}
	add("", "m", 3)
	main, _ := s.Branch("")
	b1, err := s.Fork(main.ID, 2, "b1")
	if err != nil {
		t.Fatal(err)
	}
	add("b1", "x", 2)
	if _, err := s.Fork(b1.ID, 3, "b2"); err != nil {
		t.Fatal(err)
	}
	add("b2", "y", 1)
	gone, err := s.Fork(main.ID, 4, "gone")
	if err != nil {
		t.Fatal(err)
	}
	add("gone", "g", 1)
	if err := s.DeleteBranch(gone.ID); err != nil {
		t.Fatal(err)
	}
	add("", "n", 1)
	plain := newSession(t, st, "plain")
	appendTurns(t, plain, "", "p", 2)

	want = map[string][]string{}
	for _, b := range []string{"", "b1", "b2"} {
		want["s/"+b] = contents(t, s, b)
	}
	want["plain/"] = contents(t, plain, "")
	// A torn last line, which readers skip and the migration keeps.
	log := s.logFile(main.ID)
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"role":"user","content":"to`)
	f.Close()
	if err := os.WriteFile(filepath.Join(st.Root(), "FORMAT"), formatLine(1), 0o600); err != nil {
		t.Fatal(err)
	}
	return st.Root(), want
}

// copyStore copies the store at from to a new folder.
func copyStore(t *testing.T, from string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), "store")
	copyDir(t, from, to)
	return to
}

type killed struct{}

// crashAt returns step options that stop the run at its kth step, as a
// kill would (the test recovers), and counts the steps taken.
func crashAt(k int, steps *int) func(string) {
	return func(string) {
		if *steps++; *steps == k {
			panic(killed{})
		}
	}
}

func migrate(root string, step func(string)) (res MigrateResult, err error, crashed bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(killed); !ok {
				panic(r)
			}
			crashed = true
		}
	}()
	res, err = Migrate(root, MigrateOptions{Rewrite: unpad, step: step})
	return res, err, false
}

func abort(root string, step func(string)) (err error, crashed bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(killed); !ok {
				panic(r)
			}
			crashed = true
		}
	}()
	return (&migration{root: root, o: MigrateOptions{step: step}}).abort(), false
}

// checkMigrated: the store opens at the new format and every branch reads
// what it read before, each line of it rewritten.
func checkMigrated(t *testing.T, root string, want map[string][]string) {
	t.Helper()
	st, err := Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for key, w := range want {
		name, branch, _ := strings.Cut(key, "/")
		s, err := st.Session(name)
		if err != nil {
			t.Fatal(err)
		}
		got := contents(t, s.(*Session), branch)
		if strings.Join(got, "|") != strings.Join(w, "|") {
			t.Fatalf("%s reads %q, want %q", key, got, w)
		}
		for _, m := range readBranch(t, s.(*Session), branch) {
			if bytes.Contains(m.Raw, []byte(migratePad)) {
				t.Fatalf("%s: line not rewritten: %s", key, m.Raw)
			}
		}
	}
	if exists(filepath.Join(root, migrateDir)) || exists(migrationDonePath(root)) {
		t.Fatal("migrate/, or its old copies, left behind")
	}
}

// A migration finishes from a stop at any of its steps, and the store
// reads the same after; before it finishes, the store refuses to open.
// Stopped while removing the old copies, it is done and opens; the next
// migrate removes them.
func TestMigrateCrashAnywhere(t *testing.T) {
	fixture, want := oldStore(t)
	if _, err := Open(fixture, Options{}); !errors.Is(err, backing.ErrFormat) || !strings.Contains(err.Error(), "sessfs migrate") {
		t.Fatalf("format 1 opens: %v", err)
	}
	for k := 1; ; k++ {
		root := copyStore(t, fixture)
		steps := 0
		res, err, crashed := migrate(root, crashAt(k, &steps))
		if err != nil {
			t.Fatalf("stop %d: %v", k, err)
		}
		if !crashed {
			if k < 10 || res.From != 1 || res.After >= res.Before {
				t.Fatalf("%d steps, %+v", k, res)
			}
			checkMigrated(t, root, want)
			break
		}
		_, err = Open(root, Options{})
		switch done := exists(migrationDonePath(root)); {
		case !done && !errors.Is(err, backing.ErrFormat):
			t.Fatalf("stop %d: a half-migrated store opens: %v", k, err)
		case done && err != nil: // stopped removing the old copies
			t.Fatalf("stop %d: a migrated store does not open: %v", k, err)
		}
		if _, err, _ := migrate(root, nil); err != nil {
			t.Fatalf("stop %d, then: %v", k, err)
		}
		checkMigrated(t, root, want)
	}
}

// Until it finishes, a migration can be undone from wherever it stopped,
// also when the undoing stops midway: the store is then byte for byte
// what it was.
func TestMigrateAbortAnywhere(t *testing.T) {
	fixture, _ := oldStore(t)
	before := treeSnapshot(t, fixture)
	for k := 1; ; k++ {
		root := copyStore(t, fixture)
		steps := 0
		if _, err, crashed := migrate(root, crashAt(k, &steps)); err != nil || !crashed || exists(migrationDonePath(root)) {
			break // finished (but for removing the old copies): nothing to undo
		}
		for j := 1; ; j++ {
			again := copyStore(t, root)
			steps := 0
			err, crashed := abort(again, crashAt(j, &steps))
			if crashed {
				err, _ = abort(again, nil)
			}
			if err != nil && exists(filepath.Join(again, migrateDir)) {
				t.Fatalf("stop %d, abort stop %d: %v", k, j, err)
			}
			if after := treeSnapshot(t, again); after != before {
				t.Fatalf("stop %d, abort stop %d: the store differs:\n%s\nwas\n%s", k, j, after, before)
			}
			if !crashed {
				break
			}
		}
	}
}

// A store of the current format has nothing to migrate, and a migration
// already done is not done twice.
func TestMigrateCurrent(t *testing.T) {
	st := openStore(t)
	appendTurns(t, newSession(t, st, "s"), "", "p", 1)
	before := treeSnapshot(t, st.Root())
	res, err := Migrate(st.Root(), MigrateOptions{Rewrite: func(l []byte) []byte { t.Fatal("rewrote"); return l }})
	if err != nil || !res.Current || res.From != plainFormat || res.Sessions != 0 {
		t.Fatalf("%+v, %v", res, err)
	}
	if after := treeSnapshot(t, st.Root()); after != before {
		t.Fatal("the store changed")
	}
	if err := AbortMigration(st.Root()); err == nil {
		t.Fatal("abort with no migration")
	}
}

// The fork point of a branch moves with its line.
func TestMigrateMovesForkPoints(t *testing.T) {
	root, _ := oldStore(t)
	if _, err := Migrate(root, MigrateOptions{Rewrite: unpad}); err != nil {
		t.Fatal(err)
	}
	st, err := Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := st.Session("s")
	b1, _ := s.Branch("b1")
	raw, err := os.ReadFile(s.(*Session).branchFile(b1.ID))
	if err != nil {
		t.Fatal(err)
	}
	var b backing.Branch
	json.Unmarshal(raw, &b)
	log, _ := os.ReadFile(s.(*Session).logFile(b.Parent))
	// b1 forked after main's first two messages: one padded line and one
	// plain, both now without pad.
	lines := bytes.SplitAfter(log, []byte("\n"))
	if want := int64(len(lines[0]) + len(lines[1])); b.ParentOffset != want {
		t.Fatalf("fork point %d, want %d", b.ParentOffset, want)
	}
}
