package backing

import (
	"errors"
	"testing"
)

// A session in the trash is kept as it was: appends, forks, branch
// renames and removals and meta edits are refused until it is restored.
func TestTrashedSessionIsReadOnly(t *testing.T) {
	st := openStore(t)
	s, _, err := st.Create("s", Meta{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Append("", [][]byte{[]byte(`{"role":"user","content":"hi"}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Fork("", Head, "x"); err != nil {
		t.Fatal(err)
	}
	if err := st.Trash("s"); err != nil {
		t.Fatal(err)
	}
	m, err := s.Meta()
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := EncodeMeta(m)
	for name, op := range map[string]func() error{
		"append": func() error { return s.Append("", [][]byte{[]byte(`{"role":"user","content":"no"}`)}) },
		"fork":   func() error { _, err := s.Fork("", Head, "y"); return err },
		"rename": func() error { return s.RenameBranch("x", "z") },
		"delete": func() error { return s.DeleteBranch("x") },
		"meta":   func() error { _, err := s.EditMeta(doc); return err },
	} {
		if err := op(); !errors.Is(err, ErrTrashed) {
			t.Errorf("%s in the trash: %v, want ErrTrashed", name, err)
		}
	}
	v, err := s.View("")
	if err != nil || v.Len() != 1 {
		t.Fatalf("view after refused changes: %v, %d messages", err, v.Len())
	}
	if _, err := st.Restore("s", ""); err != nil {
		t.Fatal(err)
	}
	if err := s.Append("", [][]byte{[]byte(`{"role":"user","content":"back"}`)}); err != nil {
		t.Errorf("append after restore: %v", err)
	}
}
