package filestore

import (
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// Events (role EventRole) are stored and read like any message, but start
// no turn and are not counted in listings: in this process's index and in
// one built afresh from the log.
func TestEventsNotCounted(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "s")
	if err := s.Append("", [][]byte{msg(backing.EventRole, ""), msg("user", "q"), msg(backing.EventRole, ""), msg("assistant", "a")}); err != nil {
		t.Fatal(err)
	}
	check := func(s *Session, when string) {
		t.Helper()
		v, err := s.View("")
		if err != nil {
			t.Fatal(err)
		}
		if v.Len() != 4 || v.Events() != 2 || v.Turns() != 1 {
			t.Errorf("%s: %d messages, %d events, %d turns; want 4, 2, 1", when, v.Len(), v.Events(), v.Turns())
		}
		if info := s.Info(); info.Messages != 2 {
			t.Errorf("%s: listing counts %d messages, want 2", when, info.Messages)
		}
	}
	check(s, "as appended")
	// A fork keeps only the events before its fork point.
	if _, err := s.Fork("", 2, "f"); err != nil {
		t.Fatal(err)
	}
	if err := s.Append("f", [][]byte{msg(backing.EventRole, "")}); err != nil {
		t.Fatal(err)
	}
	if v, err := s.View("f"); err != nil || v.Len() != 3 || v.Events() != 2 {
		t.Errorf("fork at 2 plus one event: %d messages, %d events (%v); want 3, 2", v.Len(), v.Events(), err)
	}
	s2 := reopen(t, st, "s")
	check(s2, "reopened")
}
