package filestore

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// A session in the trash is kept as it was: appends, forks, branch
// renames and removals, meta edits, titles, extra keys, parents and
// backdating are refused until it is restored.
func TestTrashedSessionIsReadOnly(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "s")
	if err := s.Append("", [][]byte{[]byte(`{"role":"user","content":"hi"}`)}); err != nil {
		t.Fatal(err)
	}
	b, err := s.Fork("", backing.Head, "x")
	if err != nil {
		t.Fatal(err)
	}
	x := b.ID
	if err := st.Trash("s"); err != nil {
		t.Fatal(err)
	}
	m, err := s.Meta()
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := backing.EncodeMeta(m)
	for name, op := range map[string]func() error{
		"append": func() error { return s.Append("", [][]byte{[]byte(`{"role":"user","content":"no"}`)}) },
		"fork":   func() error { _, err := s.Fork("", backing.Head, "y"); return err },
		"rename": func() error { return s.RenameBranch(x, "z") },
		"delete": func() error { return s.DeleteBranch(x) },
		"meta":   func() error { _, err := s.EditMeta(doc); return err },
		"title":  func() error { return s.SetTitle("no") },
		"extra":  func() error { return s.SetExtra("k", json.RawMessage(`"no"`)) },
		"parent": func() error { return s.SetParent("01a00000-0000-7000-8000-000000000009") },
		"backdate": func() error {
			return s.Backdate("", time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC))
		},
	} {
		if err := op(); !errors.Is(err, backing.ErrTrashed) {
			t.Errorf("%s in the trash: %v, want ErrTrashed", name, err)
		}
	}
	v, err := s.View("")
	if err != nil || v.Len() != 1 {
		t.Fatalf("view after refused changes: %v, %d messages", err, v.Len())
	}
	if after, err := s.MetaBytes(); err != nil || !bytes.Equal(after, doc) {
		t.Errorf("meta.json changed in the trash: %v\n%s\nwas\n%s", err, after, doc)
	}
	if v.ModTime().Year() == 2001 {
		t.Errorf("a log in the trash was backdated")
	}
	if _, err := st.Restore("s", ""); err != nil {
		t.Fatal(err)
	}
	if err := s.Append("", [][]byte{[]byte(`{"role":"user","content":"back"}`)}); err != nil {
		t.Errorf("append after restore: %v", err)
	}
}
