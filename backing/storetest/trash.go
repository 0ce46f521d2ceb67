package storetest

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// testTrash covers the read-only trash: a session in it refuses every
// change with ErrTrashed, reads as before, and is writable once restored.
func testTrash(t *testing.T, open Opener) {
	cases(t, open, map[string]func(*testing.T, backing.Store){
		"ReadOnly":       trashReadOnly,
		"ReadOnlyByID":   trashReadOnlyByID,
		"ArchivedToo":    trashArchivedReadOnly,
		"ReadsInTrash":   trashReads,
		"RefusedNothing": trashRefusedChangesNothing,
	})
}

// trashedFixture is a session with two branches, put in the trash.
type trashedFixture struct {
	st   backing.Store
	s    backing.Session
	main backing.Branch
	x    backing.Branch
	meta []byte
}

func newTrashed(t *testing.T, st backing.Store, archived bool) trashedFixture {
	t.Helper()
	s := newSession(t, st, "s")
	appendOK(t, s, "", qa("", 2)...)
	x := fork(t, s, "", backing.Head, "x")
	appendOK(t, s, x.ID, msg("user", "on x"))
	if archived {
		if err := st.Archive("s"); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Trash("s"); err != nil {
		t.Fatal(err)
	}
	meta, err := s.MetaBytes()
	if err != nil {
		t.Fatal(err)
	}
	return trashedFixture{st: st, s: s, main: defaultBranch(t, s), x: x, meta: meta}
}

// refuseAll makes every change a Session has to f.s and wants ErrTrashed.
func (f trashedFixture) refuseAll(t *testing.T, s backing.Session) {
	t.Helper()
	m, err := s.Meta()
	if err != nil {
		t.Fatal(err)
	}
	m.Title = "changed in the trash"
	doc, _ := backing.EncodeMeta(m)
	old := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, op := range []struct {
		name string
		do   func() error
	}{
		{"AppendID", func() error { return s.AppendID(f.x.ID, [][]byte{msg("user", "no")}) }},
		{"AppendID default", func() error { return s.AppendID("", [][]byte{msg("user", "no")}) }},
		{"AppendID retry", func() error { return s.AppendID("", [][]byte{withID("user", "no", "r1")}) }},
		{"Fork", func() error { _, err := s.Fork(f.main.ID, backing.Head, "y"); return err }},
		{"Fork at 0", func() error { _, err := s.Fork(f.x.ID, 0, "y"); return err }},
		{"RenameBranch", func() error { return s.RenameBranch(f.x.ID, "z") }},
		{"DeleteBranch", func() error { return s.DeleteBranch(f.x.ID) }},
		{"EditMeta", func() error { _, err := s.EditMeta(doc); return err }},
		{"SetExtra", func() error { return s.SetExtra("k", json.RawMessage(`"no"`)) }},
		{"SetParent", func() error { return s.SetParent("01a00000-0000-7000-8000-000000000009") }},
		{"Backdate", func() error { return s.Backdate(f.main.ID, old) }},
		{"Backdate default", func() error { return s.Backdate("", old) }},
	} {
		wantErr(t, op.name+" in the trash", op.do(), backing.ErrTrashed)
	}
}

func trashReadOnly(t *testing.T, st backing.Store) {
	f := newTrashed(t, st, false)
	if !f.s.Trashed() {
		t.Fatal("Trashed() is false")
	}
	f.refuseAll(t, f.s)
	if _, err := st.Restore(f.s.ID(), ""); err != nil {
		t.Fatal(err)
	}
	// Restored, it takes every change again.
	appendOK(t, f.s, f.x.ID, msg("user", "back"))
	fork(t, f.s, f.x.ID, backing.Head, "y")
	if err := f.s.SetExtra("k", json.RawMessage(`"yes"`)); err != nil {
		t.Errorf("SetExtra after restore: %v", err)
	}
}

// trashReadOnlyByID: a handle opened by id, in the trash, refuses too.
func trashReadOnlyByID(t *testing.T, st backing.Store) {
	f := newTrashed(t, st, false)
	s, err := st.SessionByID(f.s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if !s.Trashed() {
		t.Fatal("Trashed() is false on a handle opened by id in the trash")
	}
	f.refuseAll(t, s)
}

func trashArchivedReadOnly(t *testing.T, st backing.Store) {
	f := newTrashed(t, st, true)
	if !f.s.Trashed() {
		t.Fatal("Trashed() is false for an archived session put in the trash")
	}
	f.refuseAll(t, f.s)
}

// trashReads: a session in the trash reads as it did.
func trashReads(t *testing.T, st backing.Store) {
	f := newTrashed(t, st, false)
	s := f.s
	if m, err := s.Meta(); err != nil || m.ID != s.ID() {
		t.Errorf("Meta in the trash: %+v, %v", m, err)
	}
	if _, err := s.MetaModTime(); err != nil {
		t.Errorf("MetaModTime in the trash: %v", err)
	}
	if _, err := s.LastAppend(); err != nil {
		t.Errorf("LastAppend in the trash: %v", err)
	}
	if _, err := s.CheckMeta(f.meta); err != nil {
		t.Errorf("CheckMeta in the trash: %v", err)
	}
	bs, err := s.Branches()
	if err != nil || len(bs) != 2 {
		t.Errorf("Branches in the trash = %+v, %v", bs, err)
	}
	if b, err := s.Branch("x"); err != nil || b.ID != f.x.ID {
		t.Errorf("Branch(x) in the trash = %+v, %v", b, err)
	}
	if got := contents(t, s, f.x.ID); !slices.Equal(got, []string{"q1", "a1", "q2", "a2", "on x"}) {
		t.Errorf("x in the trash = %q", got)
	}
}

// trashRefusedChangesNothing: what the trash refused left no trace.
func trashRefusedChangesNothing(t *testing.T, st backing.Store) {
	f := newTrashed(t, st, false)
	before := map[string]int{f.main.ID: view(t, f.s, f.main.ID).Len(), f.x.ID: view(t, f.s, f.x.ID).Len()}
	f.refuseAll(t, f.s)
	for id, n := range before {
		if got := view(t, f.s, id).Len(); got != n {
			t.Errorf("branch %s has %d messages after refused changes, had %d", id, got, n)
		}
	}
	bs, _ := f.s.Branches()
	if len(bs) != 2 || bs[1].Name != "x" {
		t.Errorf("branches after refused changes = %+v", bs)
	}
	if after, err := f.s.MetaBytes(); err != nil || !bytes.Equal(after, f.meta) {
		t.Errorf("meta changed in the trash: %v\n%s\nwas\n%s", err, after, f.meta)
	}
	if la, err := f.s.LastAppend(); err != nil || la.Year() == 2001 {
		t.Errorf("LastAppend in the trash = %v, %v: backdated", la, err)
	}
}
