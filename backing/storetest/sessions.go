package storetest

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// testSessions covers Create, the name rules, the lookups and the
// listings.
func testSessions(t *testing.T, open Opener) {
	cases(t, open, map[string]func(*testing.T, backing.Store){
		"Create":          createSession,
		"CreateGenerated": createGenerated,
		"CreateImport":    createImport,
		"NameRules":       nameRules,
		"Lookup":          lookup,
		"SessionByID":     sessionByID,
		"NamesSorted":     namesSorted,
		"List":            list,
	})
}

func createSession(t *testing.T, st backing.Store) {
	in := backing.Meta{
		ID: "not-mine", Name: "not-mine", State: backing.StateTrashed, // the store's own
		Title: "A title", Cwd: "/src/x", Project: "x", Model: "m1", Provider: "p1",
		Tags:  []string{"t1", "t2"},
		Extra: map[string]json.RawMessage{"harness": json.RawMessage(`{"v":1}`)},
	}
	before := time.Now()
	s, m, err := st.Create("demo", in)
	if err != nil {
		t.Fatal(err)
	}
	wantUUIDv7(t, "session", s.ID())
	if m.ID != s.ID() || m.Name != "demo" || m.State != backing.StateActive || !m.Trashed.IsZero() {
		t.Errorf("Create returned %+v; want id %s, name demo, state active", m, s.ID())
	}
	if m.Created.Before(before.Add(-time.Minute)) || m.Created.After(time.Now().Add(time.Minute)) {
		t.Errorf("Created = %v, want about now (%v)", m.Created, before)
	}
	if s.Trashed() {
		t.Error("a new session says it is in the trash")
	}
	got, err := s.Meta()
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != m.ID || got.Name != "demo" || got.State != backing.StateActive || !got.Created.Equal(m.Created) {
		t.Errorf("Meta = %+v, want what Create returned: %+v", got, m)
	}
	if got.Title != in.Title || got.Cwd != in.Cwd || got.Project != in.Project || got.Model != in.Model ||
		got.Provider != in.Provider || !slices.Equal(got.Tags, in.Tags) || !jsonEqual(got.Extra["harness"], in.Extra["harness"]) {
		t.Errorf("Meta = %+v, want the fields given to Create: %+v", got, in)
	}
	if names, err := st.Names(); err != nil || !slices.Equal(names, []string{"demo"}) {
		t.Errorf("Names = %q, %v; want [demo]", names, err)
	}
	// The new session has its default branch, empty.
	b := defaultBranch(t, s)
	wantUUIDv7(t, "branch", b.ID)
	if b.Name != backing.DefaultBranchName || !b.IsDefault() {
		t.Errorf("default branch = %+v, want %q with no parent", b, backing.DefaultBranchName)
	}
	if v := view(t, s, ""); v.Len() != 0 || v.Turns() != 0 || v.Inherited() != 0 {
		t.Errorf("a new session's default branch has %d messages, %d turns, %d inherited", v.Len(), v.Turns(), v.Inherited())
	}
}

// createGenerated: "" gets a generated name, valid and new each time.
func createGenerated(t *testing.T, st backing.Store) {
	seen := map[string]bool{}
	for range 3 {
		_, m, err := st.Create("", backing.Meta{})
		if err != nil {
			t.Fatal(err)
		}
		if err := backing.ValidSessionName(m.Name); err != nil || seen[m.Name] {
			t.Errorf("generated name %q: %v (seen before: %v)", m.Name, err, seen[m.Name])
		}
		seen[m.Name] = true
		if _, err := st.Session(m.Name); err != nil {
			t.Errorf("session %q by its generated name: %v", m.Name, err)
		}
	}
	if names, _ := st.Names(); len(names) != 3 {
		t.Errorf("Names = %q, want 3 generated names", names)
	}
}

// createImport: a creation time in the past is kept (an import of a session
// begun elsewhere); one in the future is not.
func createImport(t *testing.T, st backing.Store) {
	past := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	_, m, err := st.Create("old", backing.Meta{Created: past})
	if err != nil {
		t.Fatal(err)
	}
	if !m.Created.Equal(past) {
		t.Errorf("Created = %v, want the imported %v", m.Created, past)
	}
	future := time.Now().Add(24 * time.Hour)
	_, m, err = st.Create("new", backing.Meta{Created: future})
	if err != nil {
		t.Fatal(err)
	}
	if !m.Created.Before(future.Add(-time.Hour)) {
		t.Errorf("Created = %v: a creation time in the future was kept", m.Created)
	}
}

func nameRules(t *testing.T, st backing.Store) {
	newSession(t, st, "taken")
	if _, _, err := st.Create("taken", backing.Meta{}); err == nil {
		t.Error("a second session named taken was created")
	} else {
		wantErr(t, "create over an existing name", err, backing.ErrExist)
	}
	newSession(t, st, "shelved")
	if err := st.Archive("shelved"); err != nil {
		t.Fatal(err)
	}
	_, _, err := st.Create("shelved", backing.Meta{})
	wantErr(t, "create over an archived name", err, backing.ErrExist)

	bad := []string{"a/b", "/", ".hidden", ".", "..", "nul\x00", "ctl\x01", "del\x7f", "bad\xffutf8"}
	for r := range backing.ReservedNames {
		bad = append(bad, r)
	}
	for _, name := range bad {
		_, _, err := st.Create(name, backing.Meta{})
		wantErr(t, "create "+strings.ToValidUTF8(name, "?"), err, backing.ErrBadName)
	}
	long := strings.Repeat("x", backing.MaxNameLen+1)
	_, _, err = st.Create(long, backing.Meta{})
	wantErr(t, "create with a name over MaxNameLen", err, backing.ErrNameTooLong)
	wantErr(t, "create with a name over MaxNameLen", err, backing.ErrBadName)
	if names, _ := st.Names(); !slices.Equal(names, []string{"taken"}) {
		t.Errorf("refused creates left names: %q", names)
	}
	for _, good := range []string{strings.Repeat("y", backing.MaxNameLen), "with space", "ünïcødé", "a.b-c_d", "archived"} {
		if _, _, err := st.Create(good, backing.Meta{}); err != nil {
			t.Errorf("create %q: %v", good, err)
		}
	}
}

func lookup(t *testing.T, st backing.Store) {
	s := newSession(t, st, "x")
	for _, state := range []string{backing.StateActive, backing.StateArchived} {
		if state == backing.StateArchived {
			if err := st.Archive("x"); err != nil {
				t.Fatal(err)
			}
		}
		got, err := st.Session("x")
		if err != nil || got.ID() != s.ID() {
			t.Errorf("%s: Session(x) = %v, %v; want id %s", state, got, err, s.ID())
		}
		got, gotState, err := st.Lookup("x")
		if err != nil || got.ID() != s.ID() || gotState != state {
			t.Errorf("%s: Lookup(x) = %v, %q, %v; want id %s, %q", state, got, gotState, err, s.ID(), state)
		}
	}
	for _, name := range []string{"nope", "X", "archive", "a/b"} {
		_, err := st.Session(name)
		wantErr(t, "Session("+name+")", err, backing.ErrNotFound)
		_, _, err = st.Lookup(name)
		wantErr(t, "Lookup("+name+")", err, backing.ErrNotFound)
	}
}

func sessionByID(t *testing.T, st backing.Store) {
	a, b, c := newSession(t, st, "a"), newSession(t, st, "b"), newSession(t, st, "c")
	if err := st.Archive("b"); err != nil {
		t.Fatal(err)
	}
	if err := st.Trash("c"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct {
		s       backing.Session
		trashed bool
	}{{a, false}, {b, false}, {c, true}} {
		got, err := st.SessionByID(want.s.ID())
		if err != nil {
			t.Errorf("SessionByID(%s): %v", want.s.ID(), err)
			continue
		}
		if got.ID() != want.s.ID() || got.Trashed() != want.trashed {
			t.Errorf("SessionByID(%s) = id %s, trashed %v; want trashed %v", want.s.ID(), got.ID(), got.Trashed(), want.trashed)
		}
	}
	for _, id := range []string{"", "01a00000-0000-7000-8000-00000000dead", "a", "../" + a.ID(), a.ID() + "/x"} {
		_, err := st.SessionByID(id)
		wantErr(t, "SessionByID("+id+")", err, backing.ErrNotFound)
	}
}

// namesSorted: each listing holds its sessions and nothing else, names
// sorted.
func namesSorted(t *testing.T, st backing.Store) {
	for _, n := range []string{"b", "Z", "a", "é", "a-2", "c", "d", "e"} {
		newSession(t, st, n)
	}
	for _, n := range []string{"d", "b"} {
		if err := st.Archive(n); err != nil {
			t.Fatal(err)
		}
	}
	var trashed []string
	for _, n := range []string{"e", "c"} {
		s, _ := st.Session(n)
		trashed = append(trashed, s.ID())
		if err := st.Trash(n); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := st.Names(); err != nil || !slices.Equal(got, []string{"Z", "a", "a-2", "é"}) {
		t.Errorf("Names = %q, %v", got, err)
	}
	if got, err := st.ArchivedNames(); err != nil || !slices.Equal(got, []string{"b", "d"}) {
		t.Errorf("ArchivedNames = %q, %v", got, err)
	}
	got, err := st.TrashedIDs()
	slices.Sort(got)
	slices.Sort(trashed)
	if err != nil || !slices.Equal(got, trashed) {
		t.Errorf("TrashedIDs = %q, %v; want %q", got, err, trashed)
	}
}

// list: a row per session with its state, its default branch's visible
// message count (events are not counted, other branches neither) and its
// last activity.
func list(t *testing.T, st backing.Store) {
	a := newSession(t, st, "a")
	appendOK(t, a, "", event("e1"), msg("user", "q"), event("e2"), msg("assistant", "r"))
	f := fork(t, a, "", backing.Head, "f")
	appendOK(t, a, f.ID, qa("f", 3)...)
	b := newSession(t, st, "b")
	appendOK(t, b, "", qa("", 2)...)
	if err := st.Archive("b"); err != nil {
		t.Fatal(err)
	}
	newSession(t, st, "c")
	if err := st.Trash("c"); err != nil {
		t.Fatal(err)
	}
	rows := func(all bool) map[string]backing.SessionInfo {
		t.Helper()
		infos, err := st.List(all)
		if err != nil {
			t.Fatalf("List(%v): %v", all, err)
		}
		out := map[string]backing.SessionInfo{}
		for _, in := range infos {
			if in.Err != nil {
				t.Errorf("List(%v): %s: %v", all, in.Name, in.Err)
			}
			out[in.Name] = in
		}
		return out
	}
	active := rows(false)
	if len(active) != 1 {
		t.Errorf("List(false) = %v, want only a", slices.Sorted(maps.Keys(active)))
	}
	if in := active["a"]; in.ID != a.ID() || in.State != backing.StateActive || in.Messages != 2 || in.LastActivity.IsZero() {
		t.Errorf("List(false) row a = %+v; want id %s, active, 2 messages, a last activity", in, a.ID())
	}
	all := rows(true)
	if in := all["a"]; in.Messages != 2 {
		t.Errorf("List(true) row a counts %d messages, want 2", in.Messages)
	}
	if in, ok := all["b"]; !ok || in.ID != b.ID() || in.State != backing.StateArchived || in.Messages != 4 {
		t.Errorf("List(true) row b = %+v (listed %v); want archived with 4 messages", in, ok)
	}
}
