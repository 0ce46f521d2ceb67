package storetest

import (
	"slices"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// testNamespace covers the changes to names: Rename, Archive, Unarchive,
// Trash and Restore.
func testNamespace(t *testing.T, open Opener) {
	cases(t, open, map[string]func(*testing.T, backing.Store){
		"Rename":         rename,
		"Archive":        archive,
		"Trash":          trash,
		"Restore":        restore,
		"RestoreByName":  restoreByName,
		"RestoreRefused": restoreRefused,
	})
}

func rename(t *testing.T, st backing.Store) {
	s := newSession(t, st, "a")
	appendOK(t, s, "", qa("", 1)...)
	newSession(t, st, "b")
	newSession(t, st, "old")
	if err := st.Archive("old"); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "rename over an active session", st.Rename("a", "b"), backing.ErrExist)
	wantErr(t, "rename over an archived session", st.Rename("a", "old"), backing.ErrExist)
	wantErr(t, "rename of no session", st.Rename("nope", "z"), backing.ErrNotFound)
	for _, bad := range []string{"x/y", ".x", "", "trash", "archive"} {
		wantErr(t, "rename to "+bad, st.Rename("a", bad), backing.ErrBadName)
	}
	if names, _ := st.Names(); !slices.Equal(names, []string{"a", "b"}) {
		t.Fatalf("refused renames changed the names: %q", names)
	}
	if err := st.Rename("a", "c"); err != nil {
		t.Fatal(err)
	}
	if names, _ := st.Names(); !slices.Equal(names, []string{"b", "c"}) {
		t.Errorf("Names after rename = %q, want [b c]", names)
	}
	_, err := st.Session("a")
	wantErr(t, "the old name after a rename", err, backing.ErrNotFound)
	if got, err := st.Session("c"); err != nil || got.ID() != s.ID() {
		t.Errorf("Session(c) = %v, %v; want id %s", got, err, s.ID())
	}
	if m, err := s.Meta(); err != nil || m.Name != "c" {
		t.Errorf("meta after rename: name %q, %v", m.Name, err)
	}
	// A handle keeps working across the rename: it holds the id.
	if got := contents(t, s, ""); !slices.Equal(got, []string{"q1", "a1"}) {
		t.Errorf("messages after rename = %q", got)
	}
	appendOK(t, s, "", msg("user", "after"))
}

func archive(t *testing.T, st backing.Store) {
	s := newSession(t, st, "a")
	newSession(t, st, "b")
	if err := st.Archive("a"); err != nil {
		t.Fatal(err)
	}
	if names, _ := st.Names(); !slices.Equal(names, []string{"b"}) {
		t.Errorf("Names after archive = %q, want [b]", names)
	}
	if names, _ := st.ArchivedNames(); !slices.Equal(names, []string{"a"}) {
		t.Errorf("ArchivedNames = %q, want [a]", names)
	}
	if m, err := s.Meta(); err != nil || m.State != backing.StateArchived {
		t.Errorf("meta after archive: state %q, %v", m.State, err)
	}
	// Archived is not trashed: the session is still read and written.
	if s.Trashed() {
		t.Error("an archived session says it is in the trash")
	}
	appendOK(t, s, "", msg("user", "still writable"))
	if st.Archive("a") == nil {
		t.Error("archiving an archived session succeeded")
	}
	if st.Unarchive("b") == nil {
		t.Error("unarchiving an active session succeeded")
	}
	wantErr(t, "archive of no session", st.Archive("nope"), backing.ErrNotFound)
	wantErr(t, "unarchive of no session", st.Unarchive("nope"), backing.ErrNotFound)
	if err := st.Unarchive("a"); err != nil {
		t.Fatal(err)
	}
	if names, _ := st.Names(); !slices.Equal(names, []string{"a", "b"}) {
		t.Errorf("Names after unarchive = %q", names)
	}
	if names, _ := st.ArchivedNames(); len(names) != 0 {
		t.Errorf("ArchivedNames after unarchive = %q", names)
	}
	if _, state, err := st.Lookup("a"); err != nil || state != backing.StateActive {
		t.Errorf("Lookup after unarchive: %q, %v", state, err)
	}
	if got := contents(t, s, ""); !slices.Equal(got, []string{"still writable"}) {
		t.Errorf("messages after unarchive = %q", got)
	}
}

func trash(t *testing.T, st backing.Store) {
	a := newSession(t, st, "a")
	b := newSession(t, st, "b")
	if err := st.Archive("b"); err != nil {
		t.Fatal(err)
	}
	for _, s := range []backing.Session{a, b} {
		m, _ := s.Meta()
		if err := st.Trash(m.Name); err != nil {
			t.Fatalf("trash %s: %v", m.Name, err)
		}
		if !s.Trashed() {
			t.Errorf("%s: Trashed() is false once in the trash", m.Name)
		}
		m, err := s.Meta()
		if err != nil || m.State != backing.StateTrashed || m.Trashed.IsZero() {
			t.Errorf("%s: meta in the trash: state %q, trashed %v, %v", m.Name, m.State, m.Trashed, err)
		}
		_, err = st.Session(m.Name)
		wantErr(t, "Session of a trashed session's name", err, backing.ErrNotFound)
	}
	if n, _ := st.Names(); len(n) != 0 {
		t.Errorf("Names = %q, want none", n)
	}
	if n, _ := st.ArchivedNames(); len(n) != 0 {
		t.Errorf("ArchivedNames = %q, want none", n)
	}
	ids, _ := st.TrashedIDs()
	slices.Sort(ids)
	want := []string{a.ID(), b.ID()}
	slices.Sort(want)
	if !slices.Equal(ids, want) {
		t.Errorf("TrashedIDs = %q, want %q", ids, want)
	}
	wantErr(t, "trash of no session", st.Trash("nope"), backing.ErrNotFound)
	wantErr(t, "trash twice", st.Trash("a"), backing.ErrNotFound)
	wantErr(t, "rename of a trashed session", st.Rename("a", "z"), backing.ErrNotFound)
	wantErr(t, "archive of a trashed session", st.Archive("a"), backing.ErrNotFound)
	// The name is free again.
	if s, _, err := st.Create("a", backing.Meta{}); err != nil || s.ID() == a.ID() {
		t.Errorf("create over a trashed session's name: %v", err)
	}
}

func restore(t *testing.T, st backing.Store) {
	s := newSession(t, st, "a")
	appendOK(t, s, "", qa("", 2)...)
	if err := st.Trash("a"); err != nil {
		t.Fatal(err)
	}
	name, err := st.Restore(s.ID(), "")
	if err != nil || name != "a" {
		t.Fatalf("restore by id = %q, %v; want its former name a", name, err)
	}
	if s.Trashed() {
		t.Error("restored session still says it is in the trash")
	}
	m, err := s.Meta()
	if err != nil || m.State != backing.StateActive || !m.Trashed.IsZero() || m.Name != "a" {
		t.Errorf("restored meta: %+v, %v", m, err)
	}
	if ids, _ := st.TrashedIDs(); len(ids) != 0 {
		t.Errorf("TrashedIDs after restore = %q", ids)
	}
	if got, _, err := st.Lookup("a"); err != nil || got.ID() != s.ID() {
		t.Errorf("Lookup(a) after restore: %v", err)
	}
	if got := contents(t, s, ""); len(got) != 4 {
		t.Errorf("restored session's messages = %q, want 4", got)
	}
	appendOK(t, s, "", msg("user", "writable again"))

	// As another name.
	if err := st.Trash("a"); err != nil {
		t.Fatal(err)
	}
	if name, err := st.Restore(s.ID(), "b"); err != nil || name != "b" {
		t.Fatalf("restore as b = %q, %v", name, err)
	}
	if m, _ := s.Meta(); m.Name != "b" {
		t.Errorf("meta name after restore as b = %q", m.Name)
	}
	if names, _ := st.Names(); !slices.Equal(names, []string{"b"}) {
		t.Errorf("Names = %q, want [b]", names)
	}
}

func restoreByName(t *testing.T, st backing.Store) {
	s := newSession(t, st, "a")
	if err := st.Trash("a"); err != nil {
		t.Fatal(err)
	}
	if name, err := st.Restore("a", ""); err != nil || name != "a" {
		t.Fatalf("restore by former name = %q, %v", name, err)
	}
	if err := st.Trash("a"); err != nil {
		t.Fatal(err)
	}
	if name, err := st.Restore("a", "c"); err != nil || name != "c" {
		t.Fatalf("restore by former name as c = %q, %v", name, err)
	}
	if got, err := st.Session("c"); err != nil || got.ID() != s.ID() {
		t.Errorf("Session(c) = %v, %v", got, err)
	}
}

func restoreRefused(t *testing.T, st backing.Store) {
	s := newSession(t, st, "x")
	if err := st.Trash("x"); err != nil {
		t.Fatal(err)
	}
	other := newSession(t, st, "x")
	_, err := st.Restore(s.ID(), "")
	wantErr(t, "restore over a name in use", err, backing.ErrExist)
	_, err = st.Restore(s.ID(), "x")
	wantErr(t, "restore as a name in use", err, backing.ErrExist)
	newSession(t, st, "y")
	if err := st.Archive("y"); err != nil {
		t.Fatal(err)
	}
	_, err = st.Restore(s.ID(), "y")
	wantErr(t, "restore as an archived session's name", err, backing.ErrExist)
	_, err = st.Restore(s.ID(), "a/b")
	wantErr(t, "restore as a bad name", err, backing.ErrBadName)
	_, err = st.Restore("nope", "")
	wantErr(t, "restore of nothing", err, backing.ErrNotFound)
	_, err = st.Restore(other.ID(), "z")
	wantErr(t, "restore of a session not in the trash", err, backing.ErrNotFound)
	if !s.Trashed() {
		t.Error("a refused restore took the session out of the trash")
	}
	if got, err := st.Session("x"); err != nil || got.ID() != other.ID() {
		t.Errorf("a refused restore changed x: %v", err)
	}
	if name, err := st.Restore(s.ID(), "x2"); err != nil || name != "x2" {
		t.Errorf("restore as x2 = %q, %v", name, err)
	}
}
