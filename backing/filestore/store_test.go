package filestore

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing"
)

func TestRoundTrip(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "demo")
	in := [][]byte{
		[]byte(`{"role":"system","content":"be brief"}`),
		[]byte(`{"role":"user","content":"hi","extra":{"keep":[1,2,3]},"id":"my-id","ts":"2020-01-01T00:00:00Z"}`),
		[]byte(`{"role":"assistant","content":[{"type":"text","text":"hello"}],"model":"m"}`),
	}
	if err := s.Append("", in); err != nil {
		t.Fatal(err)
	}
	// A fresh store handle reads only what is on disk.
	st2, err := Open(st.Root(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	s2, err := st2.Session("demo")
	if err != nil {
		t.Fatal(err)
	}
	v, err := s2.ViewID("")
	if err != nil {
		t.Fatal(err)
	}
	got, err := v.Read(0, v.Len())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("read %d messages, want 3", len(got))
	}
	for i, m := range got {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(m.Raw, &fields); err != nil {
			t.Fatal(err)
		}
		var orig map[string]json.RawMessage
		json.Unmarshal(in[i], &orig)
		for k, want := range orig {
			if string(fields[k]) != string(want) {
				t.Errorf("message %d field %s = %s, want %s", i, k, fields[k], want)
			}
		}
		for _, k := range []string{"id", "ts"} {
			if fields[k] == nil {
				t.Errorf("message %d has no %s: %s", i, k, m.Raw)
			}
		}
		if m.Index != i || m.Turn != 1 {
			t.Errorf("message %d: index %d turn %d", i, m.Index, m.Turn)
		}
	}
	if string(got[1].Raw) != `{"role":"user","content":"hi","extra":{"keep":[1,2,3]},"id":"my-id","ts":"2020-01-01T00:00:00Z"}` {
		t.Errorf("a message with id and ts must be stored as given, got %s", got[1].Raw)
	}
}

func TestMessageValidation(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "v")
	bad := map[string]string{
		"not json":        `hello`,
		"array":           `[1]`,
		"no role":         `{"content":"x"}`,
		"role not string": `{"role":1,"content":"x"}`,
		"empty role":      `{"role":"","content":"x"}`,
		"no content":      `{"role":"user"}`,
		"content number":  `{"role":"user","content":3}`,
		"content null":    `{"role":"user","content":null}`,
		"junk after":      `{"role":"user","content":"x"} x`,
		"bad utf8":        "{\"role\":\"user\",\"content\":\"\xff\"}",
		"id not string":   `{"role":"user","content":"x","id":5}`,
		"truncated":       `{"role":"user","content":"x"`,
	}
	for name, raw := range bad {
		err := s.Append("", [][]byte{msg("user", "ok"), []byte(raw)})
		var me *backing.MessageError
		if !errors.As(err, &me) || me.N != 1 || !errors.Is(err, backing.ErrInvalid) {
			t.Errorf("%s: err = %v, want MessageError N=1 wrapping ErrInvalid", name, err)
		}
	}
	if got := contents(t, s, ""); len(got) != 0 {
		t.Errorf("refused appends stored %v", got)
	}
	// Pretty-printed input is stored as one line.
	if err := s.Append("", [][]byte{[]byte("{\n  \"role\": \"user\",\n  \"content\": \"a\\nb\"\n}")}); err != nil {
		t.Fatal(err)
	}
	if got := contents(t, s, ""); !equal(got, []string{"a\nb"}) {
		t.Errorf("got %q", got)
	}
}

func TestMessageTooLarge(t *testing.T) {
	st, err := Open(t.TempDir(), Options{MaxMessage: 100})
	if err != nil {
		t.Fatal(err)
	}
	s := newSession(t, st, "big")
	err = s.Append("", [][]byte{msg("user", strings.Repeat("x", 200))})
	if !errors.Is(err, backing.ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
}

func TestTurns(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "turns")
	err := s.Append("", [][]byte{
		[]byte(`{"role":"system","content":"sys"}`), // before the first user message: turn 1
		msg("user", "q1"),
		[]byte(`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"ls","input":{}}]}`),
		[]byte(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"x"}]}`), // not a turn
		msg("assistant", "a1"),
		msg("user", "q2"),
		msg("assistant", "a2"),
	})
	if err != nil {
		t.Fatal(err)
	}
	v, _ := s.View("")
	if v.Turns() != 2 {
		t.Fatalf("turns = %d, want 2", v.Turns())
	}
	for k, want := range [][2]int{1: {0, 5}, 2: {5, 7}} {
		if k == 0 {
			continue
		}
		from, to, err := v.TurnRange(k)
		if err != nil || from != want[0] || to != want[1] {
			t.Errorf("turn %d = [%d,%d) %v, want %v", k, from, to, err, want)
		}
	}
	msgs, _ := v.Read(0, v.Len())
	wantTurn := []int{1, 1, 1, 1, 1, 2, 2}
	wantStart := []bool{true, false, false, false, false, true, false}
	for i, m := range msgs {
		if m.Turn != wantTurn[i] || m.TurnStart != wantStart[i] {
			t.Errorf("message %d: turn %d start %v, want %d %v", i, m.Turn, m.TurnStart, wantTurn[i], wantStart[i])
		}
	}
	// Read of a middle range numbers turns the same way.
	mid, _ := v.Read(3, 6)
	if mid[0].Turn != 1 || mid[2].Turn != 2 || !mid[2].TurnStart || mid[1].TurnStart {
		t.Errorf("middle read: %+v", mid)
	}
	if _, _, err := v.TurnRange(3); !errors.Is(err, backing.ErrNotFound) {
		t.Errorf("turn 3: %v", err)
	}
}

func TestSessionLifecycle(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "a")
	if _, _, err := st.Create("a", backing.Meta{}); !errors.Is(err, backing.ErrExist) {
		t.Errorf("duplicate create: %v", err)
	}
	for _, bad := range []string{".hidden", "a/b", "trash", strings.Repeat("x", 256), "nul\x00"} {
		if _, _, err := st.Create(bad, backing.Meta{}); !errors.Is(err, backing.ErrBadName) {
			t.Errorf("create %q: %v", bad, err)
		}
	}
	appendTurns(t, s, "", "", 2)
	newSession(t, st, "b")
	if err := st.Rename("a", "b"); !errors.Is(err, backing.ErrExist) {
		t.Errorf("rename over existing: %v", err)
	}
	if err := st.Rename("a", "c"); err != nil {
		t.Fatal(err)
	}
	if m, _ := s.Meta(); m.Name != "c" {
		t.Errorf("meta name after rename = %q", m.Name)
	}
	if got := contents(t, s, ""); len(got) != 4 {
		t.Errorf("the handle must survive a rename: %v", got)
	}
	if err := st.Archive("c"); err != nil {
		t.Fatal(err)
	}
	if names, _ := st.Names(); !equal(names, []string{"b"}) {
		t.Errorf("names after archive = %v", names)
	}
	if _, err := st.Session("c"); err != nil {
		t.Errorf("an archived session stays reachable by name: %v", err)
	}
	if _, _, err := st.Create("c", backing.Meta{}); !errors.Is(err, backing.ErrExist) {
		t.Errorf("archived names stay taken: %v", err)
	}
	if err := st.Unarchive("c"); err != nil {
		t.Fatal(err)
	}
	if err := st.Trash("c"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Session("c"); !errors.Is(err, backing.ErrNotFound) {
		t.Errorf("trashed session still found: %v", err)
	}
	all, _ := st.List(true)
	var states []string
	for _, i := range all {
		states = append(states, i.Name+":"+i.State)
	}
	if len(all) != 2 {
		t.Errorf("list --all = %v", states)
	}
	name, err := st.Restore("c", "")
	if err != nil || name != "c" {
		t.Fatalf("restore = %q, %v", name, err)
	}
	if got := contents(t, s, ""); len(got) != 4 {
		t.Errorf("restored session lost messages: %v", got)
	}
	m, _ := s.Meta()
	if m.State != backing.StateActive || !m.Trashed.IsZero() {
		t.Errorf("restored meta: %+v", m)
	}
}

func TestRestoreNameTaken(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "x")
	if err := st.Trash("x"); err != nil {
		t.Fatal(err)
	}
	newSession(t, st, "x")
	if _, err := st.Restore("x", ""); !errors.Is(err, backing.ErrExist) {
		t.Fatalf("restore over a taken name: %v", err)
	}
	if name, err := st.Restore(s.ID(), "x2"); err != nil || name != "x2" {
		t.Fatalf("restore by id as x2: %q %v", name, err)
	}
}

func TestSweep(t *testing.T) {
	st := openStore(t)
	newSession(t, st, "old")
	newSession(t, st, "gone")
	if err := st.Trash("gone"); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(40 * day)
	rep, err := st.Sweep(backing.SweepConfig{ArchiveAfter: 30 * day}, later, true)
	if err != nil || !equal(rep.Archived, []string{"old"}) || len(rep.Purged) != 0 {
		t.Fatalf("dry run: %+v %v", rep, err)
	}
	if names, _ := st.Names(); len(names) != 1 {
		t.Fatal("a dry run changed the store")
	}
	rep, err = st.Sweep(backing.SweepConfig{ArchiveAfter: 30 * day, PurgeAfter: 30 * day}, later, false)
	if err != nil || len(rep.Archived) != 1 || len(rep.Purged) != 1 {
		t.Fatalf("sweep: %+v %v", rep, err)
	}
	if names, _ := st.Names(); len(names) != 0 {
		t.Errorf("names after sweep: %v", names)
	}
	if ents, _ := os.ReadDir(filepath.Join(st.Root(), "sessions")); len(ents) != 1 {
		t.Errorf("purge left %d session folders, want 1", len(ents))
	}
}

func TestEditMeta(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "m")
	m, _ := s.Meta()
	doc := []byte(`{"id":"` + m.ID + `","name":"ignored","title":"New","tags":["a"],"created":"1999-01-01T00:00:00Z","custom":{"x":1}}`)
	got, err := s.EditMeta(doc)
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != "New" || got.Name != "m" || !got.Created.Equal(m.Created) || string(got.Extra["custom"]) != `{"x":1}` {
		t.Errorf("after edit: %+v", got)
	}
	if _, err := s.EditMeta([]byte(`{"id":"other","title":"x"}`)); !errors.Is(err, backing.ErrInvalid) {
		t.Errorf("changing the id: %v", err)
	}
	if _, err := s.EditMeta([]byte(`[1]`)); !errors.Is(err, backing.ErrInvalid) {
		t.Errorf("not an object: %v", err)
	}
	if m2, _ := s.Meta(); m2.Title != "New" {
		t.Errorf("a refused edit changed meta: %+v", m2)
	}
}

func TestPermissions(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "p")
	appendTurns(t, s, "", "", 1)
	if _, err := s.Fork("", backing.Head, "x"); err != nil {
		t.Fatal(err)
	}
	filepath.Walk(st.Root(), func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.Mode()&os.ModeSymlink != 0 {
			return err
		}
		want := os.FileMode(0o600)
		if fi.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), want)
		}
		return nil
	})
}

func TestFormatVersion(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "FORMAT"), []byte("sessfs store format 99\n"), 0o600)
	if _, err := Open(dir, Options{}); !errors.Is(err, backing.ErrFormat) || !strings.Contains(err.Error(), "upgrade") {
		t.Errorf("newer format: %v", err)
	}
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "notes.txt"), []byte("mine"), 0o600)
	if _, err := Open(other, Options{}); !errors.Is(err, backing.ErrFormat) {
		t.Errorf("a foreign non-empty folder must not become a store: %v", err)
	}
}
