package storetest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// testTimes covers a session's times: MetaModTime, LastAppend, and
// Backdate for an import.
func testTimes(t *testing.T, open Opener) {
	cases(t, open, map[string]func(*testing.T, backing.Store){
		"MetaModTime":  metaModTime,
		"LastAppend":   lastAppend,
		"Backdate":     backdate,
		"BackdateFork": backdateFork,
	})
}

// metaModTime: every change to the meta moves MetaModTime forward.
func metaModTime(t *testing.T, st backing.Store) {
	s := newSession(t, st, "m")
	prev, err := s.MetaModTime()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what string
		do   func() error
	}{
		{"SetExtra", func() error { return s.SetExtra("k", json.RawMessage(`1`)) }},
		{"SetParent", func() error { return s.SetParent("01a00000-0000-7000-8000-000000000009") }},
		{"EditMeta", func() error {
			_, err := s.EditMeta([]byte(`{"id":"` + s.ID() + `","title":"t"}`))
			return err
		}},
		{"Rename", func() error { return st.Rename("m", "m2") }},
	} {
		pastTick(prev)
		if err := c.do(); err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		got, err := s.MetaModTime()
		if err != nil || !got.After(prev) {
			t.Errorf("MetaModTime after %s = %v, %v; want after %v", c.what, got, err, prev)
		}
		prev = got
	}
}

func lastAppend(t *testing.T, st backing.Store) {
	before := time.Now()
	s := newSession(t, st, "m")
	prev, err := s.LastAppend()
	if err != nil {
		t.Fatal(err)
	}
	if prev.Before(before.Add(-time.Minute)) || prev.After(time.Now().Add(time.Minute)) {
		t.Errorf("LastAppend of a new session = %v, want about its creation (%v)", prev, before)
	}
	x := fork(t, s, "", backing.Head, "x")
	for _, id := range []string{"", x.ID, ""} {
		pastTick(prev)
		appendOK(t, s, id, msg("user", "q"))
		got, err := s.LastAppend()
		if err != nil || !got.After(prev) {
			t.Errorf("LastAppend after an append to %q = %v, %v; want after %v", id, got, err, prev)
		}
		prev = got
	}
}

// backdate: an import's messages are dated when they happened. Backdate
// moves a branch's last activity back to t and never forward.
func backdate(t *testing.T, st backing.Store) {
	created := time.Date(2020, 1, 2, 0, 0, 0, 0, time.UTC)
	s, _, err := st.Create("imported", backing.Meta{Created: created})
	if err != nil {
		t.Fatal(err)
	}
	appendOK(t, s, "", qa("", 2)...)
	main := defaultBranch(t, s)
	when := created.Add(36 * time.Hour)
	if err := s.Backdate(main.ID, when); err != nil {
		t.Fatal(err)
	}
	if got, err := s.LastAppend(); err != nil || !got.Equal(when) {
		t.Errorf("LastAppend after Backdate = %v, %v; want %v", got, err, when)
	}
	if got := view(t, s, main.ID).ModTime(); !got.Equal(when) {
		t.Errorf("ModTime after Backdate = %v, want %v", got, when)
	}
	infos, err := st.List(false)
	if err != nil || len(infos) != 1 || !infos[0].LastActivity.Equal(when) {
		t.Errorf("List after Backdate = %+v, %v; want last activity %v", infos, err, when)
	}
	if m := mustMeta(t, s); !m.Created.Equal(created) {
		t.Errorf("Created = %v, want %v", m.Created, created)
	}
	// Never forward.
	if err := s.Backdate(main.ID, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.LastAppend(); !got.Equal(when) {
		t.Errorf("LastAppend after a Backdate forward = %v, want it left at %v", got, when)
	}
	// "" is the default branch; an unknown id is not found.
	earlier := when.Add(-time.Hour)
	if err := s.Backdate("", earlier); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.LastAppend(); !got.Equal(earlier) {
		t.Errorf("LastAppend after Backdate(\"\") = %v, want %v", got, earlier)
	}
	wantErr(t, "Backdate of no branch", s.Backdate("01a00000-0000-7000-8000-00000000dead", earlier), backing.ErrNotFound)
	// An append after the import is dated now.
	pastTick(earlier)
	appendOK(t, s, "", msg("user", "now"))
	if got, _ := s.LastAppend(); time.Since(got) > time.Hour {
		t.Errorf("LastAppend after a new append = %v, want about now", got)
	}
}

// backdateFork: a fork's last activity is its own; backdating it leaves
// its parent's alone.
func backdateFork(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", qa("", 1)...)
	x := fork(t, s, "", backing.Head, "x")
	appendOK(t, s, x.ID, msg("user", "on x"))
	mainTime := view(t, s, "").ModTime()
	when := time.Date(2021, 6, 1, 0, 0, 0, 0, time.UTC)
	if err := s.Backdate(x.ID, when); err != nil {
		t.Fatal(err)
	}
	if got := view(t, s, x.ID).ModTime(); !got.Equal(when) {
		t.Errorf("fork's ModTime after Backdate = %v, want %v", got, when)
	}
	if got := view(t, s, "").ModTime(); !got.Equal(mainTime) {
		t.Errorf("parent's ModTime after the fork's Backdate = %v, want %v", got, mainTime)
	}
	if got, _ := s.LastAppend(); !got.Equal(mainTime) {
		t.Errorf("LastAppend = %v, want the newest branch's %v", got, mainTime)
	}
}
