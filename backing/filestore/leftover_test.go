package filestore

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// What an interrupted create or fork leaves (a session folder under its
// temporary name, an empty log of no branch) is found by fsck and removed
// by --repair, never promoted: no session or branch appears.
func TestFsckCleansInterruptedCreateAndFork(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "s")
	appendTurns(t, s, "", "", 1)
	half := filepath.Join(st.Root(), "sessions", tmpPrefix+"01a00000-0000-7000-8000-000000000002")
	m := backing.Meta{ID: "01a00000-0000-7000-8000-000000000002", Name: "half", State: backing.StateActive}
	main, _ := newBranch(backing.Branch{Name: backing.DefaultBranchName})
	if err := makeSession(half, m, main); err != nil {
		t.Fatal(err)
	}
	orphan := filepath.Join(s.Dir(), "logs", "01a00000-0000-7000-8000-000000000003.jsonl")
	os.WriteFile(orphan, nil, 0o600)

	rep, _ := st.Fsck(false)
	if !hasProblemAt(rep, filepath.Base(half), "interrupted create") || !hasProblemAt(rep, filepath.Base(orphan), "interrupted fork") {
		t.Fatalf("fsck = %+v", rep.Problems)
	}
	if rep.Remaining() != 0 {
		t.Errorf("leftovers of a crash counted as damage: %+v", rep.Problems)
	}
	for range 2 {
		if rep, _ = st.Fsck(true); rep.Remaining() != 0 {
			t.Fatalf("fsck --repair = %+v", rep.Problems)
		}
	}
	if rep, _ = st.Fsck(false); len(rep.Problems) != 0 || rep.Sessions != 1 {
		t.Fatalf("after repair: %d sessions, %+v", rep.Sessions, rep.Problems)
	}
	if names, _ := st.Names(); len(names) != 1 || names[0] != "s" {
		t.Errorf("names = %v", names)
	}
	for _, p := range []string{half, orphan} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still there: %v", p, err)
		}
	}
}

// A half-made session folder that holds a message is not for fsck to
// remove: a human looks at it.
func TestFsckKeepsHalfMadeSessionWithMessages(t *testing.T) {
	st := openStore(t)
	half := filepath.Join(st.Root(), "sessions", tmpPrefix+"01a00000-0000-7000-8000-000000000004")
	main, _ := newBranch(backing.Branch{Name: backing.DefaultBranchName})
	if err := makeSession(half, backing.Meta{ID: "01a00000-0000-7000-8000-000000000004"}, main); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(half, "logs", main.ID+".jsonl"), []byte(`{"role":"user","content":"hi"}`+"\n"), 0o600)
	rep, _ := st.Fsck(true)
	if !hasProblem(rep, "holds messages") || rep.Remaining() != 1 {
		t.Fatalf("fsck --repair = %+v", rep.Problems)
	}
	if _, err := os.Stat(half); err != nil {
		t.Errorf("the folder is gone: %v", err)
	}
}
