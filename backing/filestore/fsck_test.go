package filestore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

func TestFsckClean(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "ok")
	appendTurns(t, s, "", "", 2)
	s.Fork("", 2, "x")
	st.Archive("ok")
	newSession(t, st, "gone")
	st.Trash("gone")
	rep, err := st.Fsck(false)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sessions != 2 || len(rep.Problems) != 0 {
		t.Errorf("clean store: %d sessions, problems %+v", rep.Sessions, rep.Problems)
	}
}

// Each kind of damage is found, repaired without losing a byte, and gone
// on the next run.
func TestFsckRepairs(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "s")
	appendTurns(t, s, "", "", 2)
	x, _ := s.Fork("", backing.Head, "x")
	appendTurns(t, s, "x", "x", 1)
	log := logPath(t, s, "")

	damage := []struct {
		name, want string
		do         func()
	}{
		{"torn tail", "torn last line", func() { appendRaw(t, log, `{"role":"us`) }},
		{"corrupt line", "is not a message", func() {
			f, _ := os.OpenFile(log, os.O_RDWR, 0)
			f.WriteAt([]byte("#"), 0) // the first line's '{'
			f.Close()
		}},
		{"temp file", "temporary file", func() {
			os.WriteFile(filepath.Join(s.Dir(), ".tmp-meta.json-9"), []byte("{"), 0o600)
		}},
		{"mode", "mode 0644", func() { os.Chmod(log, 0o644) }},
		{"dangling parent", "in the session's trash", func() {
			// What a crash inside a delete could leave: x's parent moved away.
			os.MkdirAll(filepath.Join(s.Dir(), "trash"), 0o700)
			main, _ := s.Branch("")
			os.Rename(filepath.Join(s.Dir(), "branches", main.ID+".json"), filepath.Join(s.Dir(), "trash", main.ID+".json"))
			os.Rename(log, filepath.Join(s.Dir(), "trash", main.ID+".jsonl"))
		}},
		{"name link", "no name link", func() { os.Remove(filepath.Join(st.Root(), "names", "s")) }},
	}
	for _, d := range damage {
		d.do()
		rep, err := st.Fsck(false)
		if err != nil {
			t.Fatal(err)
		}
		if !hasProblem(rep, d.want) {
			t.Fatalf("%s: fsck did not report %q: %+v", d.name, d.want, rep.Problems)
		}
		rep, err = st.Fsck(true)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Remaining() != 0 {
			t.Fatalf("%s: after repair %d problems remain: %+v", d.name, rep.Remaining(), rep.Problems)
		}
		if rep, _ := st.Fsck(false); len(rep.Problems) != 0 {
			t.Fatalf("%s: still found after repair: %+v", d.name, rep.Problems)
		}
	}
	// Every cut byte is in quarantine: the torn tail, the corrupt line,
	// the temp file.
	q := strings.Join(readQuarantine(t, s), "\n")
	for _, want := range []string{`{"role":"us`, `#"id"`, "{"} {
		if !strings.Contains(q, want) {
			t.Errorf("quarantine lacks %q", want)
		}
	}
	// The session reads as before, minus the blanked corrupt first line,
	// in a process that opens it after the repair, as a reader after
	// `sessfs fsck --repair` does. (A process that indexed the log before
	// the damage keeps its index: the bytes changed in place, at the same
	// size; only tampering does that to a line that was a message.)
	s2 := reopen(t, st, "s")
	if got := contents(t, s2, x.Name); !equal(got, []string{"a1", "q2", "a2", "xq1", "xa1"}) {
		t.Errorf("x after repairs = %v", got)
	}
}

func TestFsckMissingMeta(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "lost")
	appendTurns(t, s, "", "", 1)
	old := []byte("{broken")
	os.WriteFile(filepath.Join(s.Dir(), "meta.json"), old, 0o600)
	rep, _ := st.Fsck(true)
	if rep.Remaining() != 0 || !hasProblem(rep, "unreadable") {
		t.Fatalf("fsck = %+v", rep.Problems)
	}
	m, err := s.Meta()
	if err != nil || m.Name != "lost" || m.ID != s.ID() {
		t.Errorf("rebuilt meta = %+v %v", m, err)
	}
	if q := readQuarantine(t, s); len(q) != 1 || q[0] != string(old) {
		t.Errorf("quarantine = %q", q)
	}
}

func hasProblem(rep backing.FsckReport, what string) bool {
	for _, p := range rep.Problems {
		if strings.Contains(p.What, what) {
			return true
		}
	}
	return false
}

// A session whose default branch is gone, while another branch's parent
// waits in the session's trash: restoring that parent brings no default
// branch back, so fsck says the default is missing, on a dry run and on
// a repair run alike. When the parent in the trash is the default branch,
// a dry run says repair restores it, and the repair run finds it.
func TestFsckMissingDefaultBeside(t *testing.T) {
	for _, trashRoot := range []bool{false, true} {
		st := openStore(t)
		s := newSession(t, st, "s")
		appendTurns(t, s, "", "", 1)
		x, _ := s.Fork("", backing.Head, "x")
		appendTurns(t, s, "x", "x", 1)
		if _, err := s.Fork(idOf(t, s, "x"), backing.Head, "y"); err != nil {
			t.Fatal(err)
		}
		main, _ := s.Branch("")
		trash := filepath.Join(s.Dir(), "trash")
		os.MkdirAll(trash, 0o700)
		moved := x.ID // y's parent goes to the trash
		if trashRoot {
			moved = main.ID // x's parent, the default branch, goes there
		} else {
			os.Remove(filepath.Join(s.Dir(), "branches", main.ID+".json"))
			os.Remove(filepath.Join(s.Dir(), "logs", main.ID+".jsonl"))
		}
		for _, ext := range []string{".json", ".jsonl"} {
			dir := "branches"
			if ext == ".jsonl" {
				dir = "logs"
			}
			os.Rename(filepath.Join(s.Dir(), dir, moved+ext), filepath.Join(trash, moved+ext))
		}
		for _, repair := range []bool{false, true} {
			rep, err := st.Fsck(repair)
			if err != nil {
				t.Fatal(err)
			}
			if got := hasProblem(rep, "no usable default branch"); got == trashRoot {
				t.Errorf("default in the trash %v, repair %v: reports no default %v: %+v", trashRoot, repair, got, rep.Problems)
			}
			if !hasProblem(rep, "in the session's trash; repair restores it") {
				t.Errorf("default in the trash %v, repair %v: the parent in the trash is not reported: %+v", trashRoot, repair, rep.Problems)
			}
		}
	}
}
