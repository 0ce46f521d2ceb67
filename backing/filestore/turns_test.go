package filestore

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// ctx is an injected-context message of the given kind.
func ctx(role, kind, content string) []byte {
	b, _ := json.Marshal(map[string]string{"role": role, "content": content, "context": kind})
	return b
}

// turnSession is shaped like a Codex session: instructions and
// environment context before each prompt, events in between, hook
// feedback inside a turn.
var turnSession = [][]byte{
	msg("developer", "instructions"),          // 0  turn 1
	ctx("user", "environment", "<env/>"),      // 1
	msg(backing.EventRole, ""),                // 2
	msg("user", "p1"),                         // 3  the first prompt
	msg("assistant", "a1"),                    // 4
	msg("tool", "out"),                        // 5
	msg(backing.EventRole, ""),                // 6
	ctx("user", "environment", "<env/>"),      // 7  turn 2: context before its prompt
	msg(backing.EventRole, ""),                // 8
	msg("user", "p2"),                         // 9
	msg("assistant", "a2"),                    // 10
	ctx("user", "hook", "Stop hook feedback"), // 11 inside turn 2
	msg("assistant", "a2b"),                   // 12
	msg("user", "p3"),                         // 13 turn 3
	msg("assistant", "a3"),                    // 14
}

// A turn starts at a prompt the human typed, together with the injected
// context right before it; context never starts a turn of its own.
func TestTurnsStartAtPrompts(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "s")
	// One message an append, so the index is built as a log grows.
	for _, m := range turnSession {
		if err := s.Append("", [][]byte{m}); err != nil {
			t.Fatal(err)
		}
	}
	check := func(s *Session, when string) {
		t.Helper()
		v, err := s.View("")
		if err != nil {
			t.Fatal(err)
		}
		if v.Turns() != 3 {
			t.Fatalf("%s: %d turns, want 3", when, v.Turns())
		}
		for k, want := range [][2]int{{0, 7}, {7, 13}, {13, 15}} {
			from, to, err := v.TurnRange(k + 1)
			if err != nil || from != want[0] || to != want[1] {
				t.Errorf("%s: turn %d is [%d, %d) (%v), want %v", when, k+1, from, to, err, want)
			}
		}
		msgs, err := v.Read(0, v.Len())
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			wantTurn := 1
			if m.Index >= 13 {
				wantTurn = 3
			} else if m.Index >= 7 {
				wantTurn = 2
			}
			wantStart := m.Index == 0 || m.Index == 7 || m.Index == 13
			if m.Turn != wantTurn || m.TurnStart != wantStart {
				t.Errorf("%s: message %d: turn %d start %v, want %d %v", when, m.Index, m.Turn, m.TurnStart, wantTurn, wantStart)
			}
		}
		// Reading from the middle numbers turns the same way.
		if part, _ := v.Read(8, 10); part[0].Turn != 2 || part[0].TurnStart || part[1].Turn != 2 {
			t.Errorf("%s: read from 8: %+v", when, part)
		}
	}
	check(s, "as appended")
	s2 := reopen(t, st, "s")
	check(s2, "reopened")

	// A fork between turn 2's context and its prompt has one turn: the
	// context cut off from its prompt stays with turn 1.
	if _, err := s.Fork("", 9, "f"); err != nil {
		t.Fatal(err)
	}
	v, err := s.View("f")
	if err != nil {
		t.Fatal(err)
	}
	if from, to, err := v.TurnRange(1); v.Turns() != 1 || from != 0 || to != 9 || err != nil {
		t.Errorf("fork at 9: %d turns, turn 1 [%d, %d) %v; want 1 turn [0, 9)", v.Turns(), from, to, err)
	}
	// A prompt appended to the fork opens turn 2 at itself: a turn never
	// reaches back across a fork point into the parent's log.
	if err := s.Append("f", [][]byte{msg("user", "p2'")}); err != nil {
		t.Fatal(err)
	}
	v, _ = s.View("f")
	if from, _, _ := v.TurnRange(2); v.Turns() != 2 || from != 9 {
		t.Errorf("fork grown: %d turns, turn 2 from %d; want 2, from 9", v.Turns(), from)
	}
}

// A count a person reads or types counts visible messages: events are
// skipped.
func TestVisibleCounts(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "s")
	if err := s.Append("", turnSession); err != nil {
		t.Fatal(err)
	}
	v, err := s.View("")
	if err != nil {
		t.Fatal(err)
	}
	if v.Visible() != 12 {
		t.Errorf("Visible = %d, want 12", v.Visible())
	}
	for k, want := range map[int]int{0: 0, 1: 1, 2: 2, 3: 4, 5: 6, 6: 8, 7: 10, 12: 15} {
		got, err := v.AfterVisible(k)
		if err != nil || got != want {
			t.Errorf("AfterVisible(%d) = %d, %v; want %d", k, got, err, want)
		}
		if vb := v.VisibleBefore(got); vb != k {
			t.Errorf("VisibleBefore(AfterVisible(%d)) = %d", k, vb)
		}
	}
	if _, err := v.AfterVisible(13); !errors.Is(err, backing.ErrInvalid) {
		t.Errorf("AfterVisible past the end: %v", err)
	}
}
