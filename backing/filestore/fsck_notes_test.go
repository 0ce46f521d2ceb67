package filestore

import (
	"os"
	"path/filepath"
	"testing"
)

// What a crash of sessfs leaves (the torn last line of an append killed
// mid-write, the temporary file of an atomic replace) is reported as a
// note: no damage, so fsck passes, and --repair tidies it. Damage found
// with it still counts.
func TestFsckCrashLeftoversAreNotes(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "s")
	appendTurns(t, s, "", "", 1)
	appendRaw(t, logPath(t, s, ""), `{"role":"user","content":"torn`)
	os.WriteFile(filepath.Join(s.Dir(), tmpPrefix+"meta.json-123"), []byte("{"), 0o600)

	rep, err := st.Fsck(false)
	if err != nil {
		t.Fatal(err)
	}
	notes := 0
	for _, p := range rep.Problems {
		if p.Note {
			notes++
		}
	}
	if notes != 2 || len(rep.Problems) != 2 || rep.Remaining() != 0 {
		t.Fatalf("fsck = %+v, want 2 notes and nothing remaining", rep.Problems)
	}
	os.Chmod(filepath.Join(s.Dir(), "meta.json"), 0o644)
	if rep, _ = st.Fsck(false); rep.Remaining() != 1 {
		t.Fatalf("with damage too: %+v", rep.Problems)
	}
	if rep, _ = st.Fsck(true); rep.Remaining() != 0 {
		t.Fatalf("fsck --repair = %+v", rep.Problems)
	}
	if rep, _ = st.Fsck(false); len(rep.Problems) != 0 {
		t.Fatalf("after repair: %+v", rep.Problems)
	}
}

// A kill between a finished migration's rename of migrate/ and its removal
// leaves the old copies at the store's root: fsck notes them, and
// --repair removes them.
func TestFsckMigrationLeftover(t *testing.T) {
	st := openStore(t)
	done := migrationDonePath(st.root)
	if err := os.MkdirAll(filepath.Join(done, "sessions", "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(done, "sessions", "x", "log.jsonl"), []byte("{}\n"), 0o600)
	rep, err := st.Fsck(false)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 1 || !rep.Problems[0].Note || !rep.Problems[0].Fixable || rep.Problems[0].Path != filepath.Base(done) {
		t.Fatalf("fsck = %+v, want one fixable note on %s", rep.Problems, filepath.Base(done))
	}
	if rep, _ = st.Fsck(true); !rep.Problems[0].Repaired {
		t.Fatalf("fsck --repair = %+v", rep.Problems)
	}
	if _, err := os.Lstat(done); !os.IsNotExist(err) {
		t.Fatalf("after repair: %v", err)
	}
}
