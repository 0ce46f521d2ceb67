package storetest

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// testMeta covers a session's meta: reading it, checking and editing a
// document by the rule of backing.Edited, SetExtra and SetParent.
func testMeta(t *testing.T, open Opener) {
	cases(t, open, map[string]func(*testing.T, backing.Store){
		"Read":        metaRead,
		"CheckMeta":   checkMeta,
		"EditMeta":    editMeta,
		"EditRefused": editRefused,
		"SetExtra":    setExtra,
		"SetParent":   setParent,
	})
}

func metaRead(t *testing.T, st backing.Store) {
	s, created, err := st.Create("m", backing.Meta{Title: "T"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Meta()
	if err != nil || m.ID != s.ID() || m.Title != "T" {
		t.Fatalf("Meta = %+v, %v", m, err)
	}
	raw, err := s.MetaBytes()
	if err != nil {
		t.Fatal(err)
	}
	fromBytes, err := backing.DecodeMeta(raw)
	if err != nil {
		t.Fatalf("MetaBytes is no meta.json: %v\n%s", err, raw)
	}
	if fromBytes.ID != m.ID || fromBytes.Name != "m" || fromBytes.Title != "T" || !fromBytes.Created.Equal(created.Created) {
		t.Errorf("MetaBytes says %+v, Meta %+v", fromBytes, m)
	}
	// MetaBytes is a document EditMeta takes back as it is.
	if _, err := s.CheckMeta(raw); err != nil {
		t.Errorf("CheckMeta(MetaBytes()): %v", err)
	}
	if mt, err := s.MetaModTime(); err != nil || mt.IsZero() {
		t.Errorf("MetaModTime = %v, %v", mt, err)
	}
}

func checkMeta(t *testing.T, st backing.Store) {
	s := newSession(t, st, "m")
	id := s.ID()
	before, _ := s.MetaBytes()
	for what, doc := range map[string]string{
		"not JSON":       `{"id":"` + id + `",`,
		"an array":       `[{"id":"` + id + `"}]`,
		"a string":       `"` + id + `"`,
		"empty":          ``,
		"invalid UTF-8":  "{\"id\":\"" + id + "\",\"title\":\"\xff\"}",
		"another id":     `{"id":"01a00000-0000-7000-8000-00000000dead","title":"x"}`,
		"no id":          `{"title":"x"}`,
		"trailing bytes": `{"id":"` + id + `"} {}`,
	} {
		_, err := s.CheckMeta([]byte(doc))
		wantErr(t, "CheckMeta of "+what, err, backing.ErrInvalid)
		_, err = s.EditMeta([]byte(doc))
		wantErr(t, "EditMeta of "+what, err, backing.ErrInvalid)
	}
	m, err := s.CheckMeta([]byte(`{"id":"` + id + `","title":"checked","x":1}`))
	if err != nil || m.Title != "checked" || string(m.Extra["x"]) != "1" {
		t.Errorf("CheckMeta of a good document = %+v, %v", m, err)
	}
	if after, _ := s.MetaBytes(); !bytes.Equal(after, before) {
		t.Errorf("CheckMeta and refused edits changed the meta:\n%s\nwas\n%s", after, before)
	}
}

// editMeta: the store's fields keep their values whatever the document
// says; every other field takes the document's, and one it leaves out goes.
func editMeta(t *testing.T, st backing.Store) {
	s, _, err := st.Create("m", backing.Meta{Title: "old", Model: "m0", Tags: []string{"t"},
		Extra: map[string]json.RawMessage{"gone": json.RawMessage(`true`)}})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Archive("m"); err != nil {
		t.Fatal(err)
	}
	old, _ := s.Meta()
	doc := `{"id":"` + s.ID() + `","name":"ignored","state":"trashed","created":"1999-01-01T00:00:00Z",
		"trashed":"2001-01-01T00:00:00Z","title":"New","tags":["a","b"],"cwd":"/w","project":"p",
		"provider":"prov","custom":{"x":[1,2]},"n":3}`
	got, err := s.EditMeta([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []backing.Meta{got, mustMeta(t, s)} {
		if m.ID != old.ID || m.Name != "m" || m.State != backing.StateArchived || !m.Created.Equal(old.Created) || !m.Trashed.IsZero() {
			t.Errorf("store-owned fields changed by an edit: %+v, was %+v", m, old)
		}
		if m.Title != "New" || len(m.Tags) != 2 || m.Tags[1] != "b" || m.Cwd != "/w" || m.Project != "p" || m.Provider != "prov" {
			t.Errorf("edited fields not taken: %+v", m)
		}
		if m.Model != "" {
			t.Errorf("model, left out of the document, is still %q", m.Model)
		}
		if !jsonEqual(m.Extra["custom"], []byte(`{"x":[1,2]}`)) || !jsonEqual(m.Extra["n"], []byte(`3`)) {
			t.Errorf("unknown fields not taken: %q", m.Extra)
		}
		if _, ok := m.Extra["gone"]; ok {
			t.Errorf("an unknown field left out of the document is still there: %q", m.Extra)
		}
		if m.Updated.Before(old.Updated) {
			t.Errorf("Updated went back: %v, was %v", m.Updated, old.Updated)
		}
	}
	// A second edit leaves out what the first added.
	got, err = s.EditMeta([]byte(`{"id":"` + s.ID() + `","title":"again"}`))
	if err != nil {
		t.Fatal(err)
	}
	m := mustMeta(t, s)
	if m.Title != "again" || len(m.Extra) != 0 || len(m.Tags) != 0 || m.Cwd != "" || m.Name != "m" {
		t.Errorf("after an edit to a title alone: %+v", m)
	}
	if got.Title != m.Title || got.Name != m.Name {
		t.Errorf("EditMeta returned %+v, Meta says %+v", got, m)
	}
}

// editRefused: the document EditMeta refuses changes nothing.
func editRefused(t *testing.T, st backing.Store) {
	s := newSession(t, st, "m")
	before, _ := s.MetaBytes()
	_, err := s.EditMeta([]byte(`{"id":"other","title":"x"}`))
	wantErr(t, "EditMeta changing the id", err, backing.ErrInvalid)
	if after, _ := s.MetaBytes(); !bytes.Equal(after, before) {
		t.Errorf("a refused edit changed the meta:\n%s\nwas\n%s", after, before)
	}
}

func setExtra(t *testing.T, st backing.Store) {
	s := newSession(t, st, "m")
	if err := s.SetExtra("source", json.RawMessage(`{"agent":"x","n":[1,2]}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.SetExtra("other", json.RawMessage(`"v"`)); err != nil {
		t.Fatal(err)
	}
	if err := s.SetExtra("source", json.RawMessage(`{"agent":"y"}`)); err != nil {
		t.Fatal(err)
	}
	m := mustMeta(t, s)
	if !jsonEqual(m.Extra["source"], []byte(`{"agent":"y"}`)) || !jsonEqual(m.Extra["other"], []byte(`"v"`)) {
		t.Errorf("Extra = %q", m.Extra)
	}
	before, _ := s.MetaBytes()
	for _, key := range []string{"id", "name", "title", "created", "updated", "cwd", "project", "model",
		"provider", "tags", "state", "parent", "trashed"} {
		wantErr(t, "SetExtra of store-owned "+key, s.SetExtra(key, json.RawMessage(`"x"`)), backing.ErrInvalid)
	}
	wantErr(t, "SetExtra of a key in invalid UTF-8", s.SetExtra("k\xff", json.RawMessage(`"x"`)), backing.ErrInvalid)
	wantErr(t, "SetExtra of a value in invalid UTF-8", s.SetExtra("k", json.RawMessage("\"\xff\"")), backing.ErrInvalid)
	wantErr(t, "SetExtra of a value that is not JSON", s.SetExtra("k", json.RawMessage(`{"a":`)), backing.ErrInvalid)
	if after, _ := s.MetaBytes(); !bytes.Equal(after, before) {
		t.Errorf("refused SetExtra changed the meta:\n%s\nwas\n%s", after, before)
	}
	if m := mustMeta(t, s); m.Title != "" || m.Name != "m" {
		t.Errorf("refused SetExtra changed known fields: %+v", m)
	}
}

func setParent(t *testing.T, st backing.Store) {
	p := newSession(t, st, "parent")
	s := newSession(t, st, "child")
	if err := s.SetParent(p.ID()); err != nil {
		t.Fatal(err)
	}
	if m := mustMeta(t, s); m.Parent != p.ID() {
		t.Errorf("Parent = %q, want %q", m.Parent, p.ID())
	}
	if m := mustMeta(t, p); m.Parent != "" {
		t.Errorf("the parent's Parent = %q", m.Parent)
	}
}

func mustMeta(t *testing.T, s backing.Session) backing.Meta {
	t.Helper()
	m, err := s.Meta()
	if err != nil {
		t.Fatal(err)
	}
	return m
}
