package filestore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A crash mid-append leaves half a line: readers ignore it, the next append
// moves it to quarantine and starts on a fresh line.
func TestTornTail(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "torn")
	appendTurns(t, s, "", "", 1)
	log := logPath(t, s, "")
	torn := `{"role":"user","content":"half a me`
	appendRaw(t, log, torn)

	// A fresh process reads the whole lines and nothing of the torn one.
	st2, _ := Open(st.Root(), Options{})
	s2 := concrete(st2.Session("torn"))
	if got := contents(t, s2, ""); !equal(got, []string{"q1", "a1"}) {
		t.Fatalf("read with torn tail = %v", got)
	}
	if err := s2.Append("", [][]byte{msg("user", "after")}); err != nil {
		t.Fatal(err)
	}
	if got := contents(t, s2, ""); !equal(got, []string{"q1", "a1", "after"}) {
		t.Fatalf("after repair = %v", got)
	}
	data, _ := os.ReadFile(log)
	if strings.Contains(string(data), "half a me") || !strings.HasSuffix(string(data), "\n") {
		t.Errorf("log still holds the torn bytes:\n%s", data)
	}
	q := readQuarantine(t, s)
	if len(q) != 1 || !strings.Contains(q[0], torn) {
		t.Errorf("quarantine = %q, want the torn bytes", q)
	}
	// The first process, whose index saw the log before the repair, agrees.
	if got := contents(t, s, ""); !equal(got, []string{"q1", "a1", "after"}) {
		t.Errorf("stale process reads %v", got)
	}
}

func TestCorruptMiddleLine(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "corrupt")
	appendTurns(t, s, "", "", 1)
	appendRaw(t, logPath(t, s, ""), "garbage {not json\n")
	appendTurns(t, s, "", "later-", 1)
	// The bad line is skipped, never stops reading, and stays in the log.
	if got := contents(t, s, ""); !equal(got, []string{"q1", "a1", "later-q1", "later-a1"}) {
		t.Errorf("read = %v", got)
	}
	data, _ := os.ReadFile(logPath(t, s, ""))
	if !strings.Contains(string(data), "garbage {not json\n") {
		t.Error("the corrupt line was dropped from the log")
	}
	rep, err := st.Fsck(false)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].What, "line 3") {
		t.Errorf("fsck = %+v", rep.Problems)
	}
}

// A crash during a meta.json replace leaves the temp file; meta.json itself
// is the old document or the new one, never a mix.
func TestMetaReplaceCrash(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "meta")
	if err := s.SetTitle("before"); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(s.Dir(), ".tmp-meta.json-123")
	os.WriteFile(tmp, []byte(`{"id":"x","tit`), 0o600)
	m, err := s.Meta()
	if err != nil || m.Title != "before" {
		t.Fatalf("meta with a leftover temp = %+v %v", m, err)
	}
	if err := s.SetTitle("after"); err != nil {
		t.Fatal(err)
	}
	if m, _ := s.Meta(); m.Title != "after" {
		t.Errorf("title = %q", m.Title)
	}
	if _, err := os.Stat(tmp); err != nil {
		t.Errorf("an unrelated temp file vanished before fsck: %v", err)
	}
}

func readQuarantine(t *testing.T, s *Session) []string {
	t.Helper()
	ents, _ := os.ReadDir(filepath.Join(s.Dir(), "quarantine"))
	var out []string
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(s.Dir(), "quarantine", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}
