package storetest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// testTurns covers the turn rule (backing/turns.go) as views apply it:
// Turns, TurnRange, TurnOf and each message's Turn and TurnStart.
func testTurns(t *testing.T, open Opener) {
	cases(t, open, map[string]func(*testing.T, backing.Store){
		"Rule":          turnRule,
		"ToolResults":   turnToolResults,
		"ContextJoins":  turnContextJoins,
		"OneByOne":      turnOneByOne,
		"ReadFromMid":   turnReadFromMiddle,
		"Range":         turnRangeErrors,
		"Forks":         turnForks,
		"ContextAtFork": turnContextAtFork,
	})
}

// codexLike is shaped like a Codex session: instructions and environment
// context before each prompt, events in between, hook feedback inside a
// turn. Its turns are [0, 7), [7, 13), [13, 15).
var codexLike = [][]byte{
	msg("developer", "instructions"),          // 0  turn 1
	ctx("user", "environment", "<env/>"),      // 1
	event(""),                                 // 2
	msg("user", "p1"),                         // 3  the first prompt
	msg("assistant", "a1"),                    // 4
	msg("tool", "out"),                        // 5
	event(""),                                 // 6
	ctx("user", "environment", "<env/>"),      // 7  turn 2: context before its prompt
	event(""),                                 // 8
	msg("user", "p2"),                         // 9
	msg("assistant", "a2"),                    // 10
	ctx("user", "hook", "Stop hook feedback"), // 11 inside turn 2
	msg("assistant", "a2b"),                   // 12
	msg("user", "p3"),                         // 13 turn 3
	msg("assistant", "a3"),                    // 14
}

var codexTurns = [][2]int{{0, 7}, {7, 13}, {13, 15}}

// checkTurns checks that v's turns are those of want (each [from, to)),
// and that Turns, TurnRange, TurnOf and Read agree on them.
func checkTurns(t *testing.T, v backing.View, want [][2]int) {
	t.Helper()
	if v.Turns() != len(want) {
		t.Fatalf("Turns = %d, want %d (%v)", v.Turns(), len(want), want)
	}
	for k, w := range want {
		from, to, err := v.TurnRange(k + 1)
		if err != nil || from != w[0] || to != w[1] {
			t.Errorf("TurnRange(%d) = [%d, %d) %v, want %v", k+1, from, to, err, w)
		}
	}
	checkTurnsAgree(t, v)
}

// checkTurnsAgree checks what holds of any view: turns cover it in
// order, from message 0, and TurnOf, Read's Turn and TurnStart say the
// same as TurnRange.
func checkTurnsAgree(t *testing.T, v backing.View) {
	t.Helper()
	if (v.Turns() == 0) != (v.Len() == 0) {
		t.Errorf("%d turns in %d messages", v.Turns(), v.Len())
	}
	msgs := readAll(t, v)
	next := 0
	for k := 1; k <= v.Turns(); k++ {
		from, to, err := v.TurnRange(k)
		if err != nil || from != next || to <= from || to > v.Len() {
			t.Errorf("TurnRange(%d) = [%d, %d) %v; the turn before ended at %d", k, from, to, err, next)
			return
		}
		for i := from; i < to; i++ {
			if v.TurnOf(i) != k || msgs[i].Turn != k || msgs[i].TurnStart != (i == from) {
				t.Errorf("message %d of turn %d [%d, %d): TurnOf %d, Turn %d, TurnStart %v",
					i, k, from, to, v.TurnOf(i), msgs[i].Turn, msgs[i].TurnStart)
			}
		}
		next = to
	}
	if next != v.Len() {
		t.Errorf("turns end at %d of %d messages", next, v.Len())
	}
}

func turnRule(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", codexLike...)
	checkTurns(t, view(t, s, ""), codexTurns)
}

// turnToolResults: a user message of tool results alone starts no turn;
// one with text beside them does.
func turnToolResults(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "",
		msg("system", "sys"), // before the first prompt: turn 1
		msg("user", "q1"),
		[]byte(`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"ls","input":{}}]}`),
		toolResult("t1"),
		[]byte(`{"role":"user","content":[{"type":"function_call_output","call_id":"c1","output":"x"}]}`),
		[]byte(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"x"},{"type":"function_call_output","call_id":"c2","output":"y"}]}`),
		msg("assistant", "a1"),
		[]byte(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t3","content":"x"},{"type":"text","text":"and also"}]}`), // 7: a prompt
		msg("assistant", "a2"),
		[]byte(`{"role":"user","content":[{"type":"input_text","text":"q3"}]}`), // 9: a prompt
		event("e"),
	)
	checkTurns(t, view(t, s, ""), [][2]int{{0, 7}, {7, 9}, {9, 11}})
}

// turnContextJoins: system and developer messages and messages with a
// "context" field join the turn they precede; events between them and the
// prompt do not change that; context with no prompt after it stays in
// the turn before.
func turnContextJoins(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "",
		msg("user", "q1"),      // 0 turn 1
		msg("assistant", "a1"), // 1
		msg("system", "s"),     // 2 turn 2
		event("e"),             // 3
		msg("developer", "d"),  // 4
		ctx("user", "agents.md", "rules"),
		ctx("assistant", "summary", "compacted"), // 6: context whatever its role
		msg("user", "q2"),                        // 7
		msg("assistant", "a2"),                   // 8
		event("e"),                               // 9 turn 3 starts after it
		msg("user", "q3"),                        // 10
		msg("system", "trailing"),                // 11 no prompt after it: turn 3
	)
	checkTurns(t, view(t, s, ""), [][2]int{{0, 2}, {2, 10}, {10, 12}})
}

// turnOneByOne: a branch appended a message at a time numbers turns as
// one appended at once.
func turnOneByOne(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	for i, m := range codexLike {
		appendOK(t, s, "", m)
		checkTurnsAgree(t, view(t, s, ""))
		if t.Failed() {
			t.Fatalf("after message %d", i)
		}
	}
	checkTurns(t, view(t, s, ""), codexTurns)
}

// turnReadFromMiddle: a read that starts inside a turn numbers it as a
// read from 0 does.
func turnReadFromMiddle(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", codexLike...)
	v := view(t, s, "")
	part, err := v.Read(8, 14)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range part {
		wantTurn := 2
		if m.Index >= 13 {
			wantTurn = 3
		}
		if m.Turn != wantTurn || m.TurnStart != (m.Index == 13) {
			t.Errorf("Read(8, 14): message %d turn %d start %v, want %d %v", m.Index, m.Turn, m.TurnStart, wantTurn, m.Index == 13)
		}
	}
}

func turnRangeErrors(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", qa("", 2)...)
	v := view(t, s, "")
	for _, k := range []int{0, -1, 3, 100} {
		_, _, err := v.TurnRange(k)
		if !errors.Is(err, backing.ErrNotFound) {
			t.Errorf("TurnRange(%d) of 2 turns: err = %v, want ErrNotFound", k, err)
		}
	}
	// Messages before any prompt are turn 1.
	s2 := newSession(t, st, "s2")
	appendOK(t, s2, "", msg("system", "sys"), msg("assistant", "hello"))
	checkTurns(t, view(t, s2, ""), [][2]int{{0, 2}})
}

// turnForks: a fork at a turn boundary, inside a turn and at a message
// has the turns of the messages it shows.
func turnForks(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", codexLike...)
	for at, want := range map[int][][2]int{
		15: codexTurns,
		13: {{0, 7}, {7, 13}},
		5:  {{0, 5}},
		4:  {{0, 4}},
		1:  {{0, 1}},
		0:  nil,
	} {
		f := fork(t, s, "", at, fmt.Sprint("at", at))
		t.Run(fmt.Sprint("at", at), func(t *testing.T) {
			checkTurns(t, view(t, s, f.ID), want)
		})
	}
	// A prompt appended after a fork in the middle of a turn opens the
	// next turn.
	f := fork(t, s, "", 11, "mid")
	appendOK(t, s, f.ID, msg("user", "p2'"), msg("assistant", "a2'"))
	checkTurns(t, view(t, s, f.ID), [][2]int{{0, 7}, {7, 11}, {11, 13}})
}

// turnContextAtFork: context cut off from its prompt by a fork point has
// no prompt in the fork, so it stays in the turn before.
func turnContextAtFork(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", codexLike...)
	f := fork(t, s, "", 9, "f")
	checkTurns(t, view(t, s, f.ID), [][2]int{{0, 9}})
	// Whatever an engine then does with a prompt appended to the fork,
	// its turns stay consistent.
	appendOK(t, s, f.ID, msg("user", "p2'"))
	v := view(t, s, f.ID)
	if v.Turns() != 2 {
		t.Errorf("fork plus a prompt: %d turns, want 2", v.Turns())
	}
	checkTurnsAgree(t, v)
}
