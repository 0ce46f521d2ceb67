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
