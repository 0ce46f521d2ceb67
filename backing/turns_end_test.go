package backing_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// endingsCase builds a branch from a short script, one letter a message:
// p a prompt, a an answer, e a turn_end, i a turn_end marked interrupted,
// r a run_errored, c a run_completed, n Claude Code's note that the user
// interrupted, x Codex's turn_aborted event, u a usage event.
func endingsScript(t *testing.T, script string) [][]byte {
	t.Helper()
	var out [][]byte
	for k, c := range script {
		var l string
		switch c {
		case 'p':
			l = fmt.Sprintf(`{"role":"user","content":"q%d"}`, k)
		case 'a':
			l = `{"role":"assistant","content":"a"}`
		case 'e':
			l = `{"role":"event","content":"","event":"turn_end","data":{}}`
		case 'i':
			l = `{"role":"event","content":"","event":"turn_end","data":{"interrupted":true,"reason":"Esc"}}`
		case 'r':
			l = `{"role":"event","content":"","event":"run_errored","data":{"error":"overloaded"}}`
		case 'c':
			l = `{"role":"event","content":"","event":"run_completed","data":{}}`
		case 'n':
			l = `{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}],"context":"interruption","source_seq":9}`
		case 'x':
			l = `{"role":"event","content":"","event":"event_msg/turn_aborted","source":{"type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}},"source_seq":9}`
		case 'u':
			l = `{"role":"event","content":"","event":"usage","data":{"input":1}}`
		}
		out = append(out, []byte(l))
	}
	return out
}

// The interruption rule, turn by turn, through Endings (a branch read in
// order) and TurnEnding (one turn of a view), which must agree. A branch
// that never writes turn_end has no turn cut off, whatever else it
// writes.
func TestInterruptionRule(t *testing.T) {
	for _, c := range []struct {
		script string
		want   string // per turn: . complete or unknown, I interrupted, C cut off
	}{
		{"papapa", "..."},      // no turn_end ever: never cut off
		{"pauuapaupa", "..."},  // usage events are not turn ends
		{"paepaepae", "..."},   // every turn ended
		{"paepapaepa", ".C.."}, // turn 2 has none while turn 1 had
		{"papaepa", "..."},     // turn 1 is before the first turn_end: never cut off
		{"paepa", ".."},        // the last turn is under way, not cut off
		{"paipae", "I."},       // the harness says so
		{"paraepae", ".."},     // a turn_end after the error: it went on
		{"paeparpae", ".I."},   // run_errored, no turn_end after: interrupted
		{"parapaepa", "I.."},   // run_errored in a branch not yet using turn_end
		{"paracepa", ".."},     // a run_completed after the error: it went on
		{"paranepa", "I."},     // the note opens turn 2 (context) and marks turn 1
		{"panpa", "I."},        // Claude Code: the note after the turn marks it
		{"paxpa", "I."},        // Codex: turn_aborted in the turn
		{"papan", ".I"},        // a note at the end marks the last turn
		{"paepaipae", ".I."},   // explicit in a branch using turn_end: not cut off
		{"paepaepaepapaepae", "...C.."},
	} {
		lines := endingsScript(t, c.script)
		s := session(t, openStore(t), "s", backing.Meta{}, time.Now())
		main := branchID(t, s, "")
		if err := s.AppendID(main, lines); err != nil {
			t.Fatal(err)
		}
		v, err := s.ViewID(main)
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := v.Read(0, v.Len())
		if err != nil {
			t.Fatal(err)
		}
		var e backing.Endings
		for _, m := range msgs {
			e.Add(m)
		}
		var got, one strings.Builder
		for k := 1; k <= v.Turns(); k++ {
			end, ok := e.Turn(k)
			if !ok {
				t.Errorf("%s: Endings has no turn %d", c.script, k)
			}
			got.WriteByte(mark(end))
			end, err := backing.TurnEnding(v, k)
			if err != nil {
				t.Fatal(err)
			}
			one.WriteByte(mark(end))
		}
		if got.String() != c.want {
			t.Errorf("%s: Endings %s, want %s", c.script, got.String(), c.want)
		}
		if one.String() != c.want {
			t.Errorf("%s: TurnEnding %s, want %s", c.script, one.String(), c.want)
		}
	}
}

func mark(e backing.Ending) byte {
	switch {
	case e.CutOff:
		return 'C'
	case e.Interrupted:
		return 'I'
	}
	return '.'
}

// A fork inherits the rule's premise: turn_end before its fork point
// counts, the parent's after it does not.
func TestInterruptionRuleFork(t *testing.T) {
	s := session(t, openStore(t), "s", backing.Meta{}, time.Now())
	main := branchID(t, s, "")
	if err := s.AppendID(main, endingsScript(t, "papa")); err != nil {
		t.Fatal(err)
	}
	x, err := s.Fork(main, 2, "x") // after turn 1, before turn_end
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AppendID(main, endingsScript(t, "epapa")); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendID(x.ID, endingsScript(t, "papa")); err != nil {
		t.Fatal(err)
	}
	v, err := s.ViewID(x.ID)
	if err != nil {
		t.Fatal(err)
	}
	for k := 1; k <= v.Turns(); k++ {
		if end, err := backing.TurnEnding(v, k); err != nil || end.Interrupted {
			t.Errorf("fork's turn %d: %+v, %v; the parent's turn_end came after the fork point", k, end, err)
		}
	}
}

// How a transcript names the lines that mark a turn interrupted, and the
// note where a cut-off turn's successor begins.
func TestInterruptionNotes(t *testing.T) {
	for _, c := range []struct{ script, want string }{
		{"i", "turn interrupted: Esc"},
		{"r", "run errored: overloaded"},
		{"x", "turn aborted: interrupted"},
		{"e", ""},
		{"c", ""},
		{"n", ""}, // shown as context already
		{"u", ""},
	} {
		if got := backing.InterruptionNote(endingsScript(t, c.script)[0]); got != c.want {
			t.Errorf("InterruptionNote(%s) = %q, want %q", c.script, got, c.want)
		}
	}
	if got := (backing.Ending{Interrupted: true, CutOff: true}).Note(3); got != "turn 3 was interrupted: it has no turn_end" {
		t.Errorf("Note = %q", got)
	}
	if got := (backing.Ending{Interrupted: true}).Note(3); got != "" {
		t.Errorf("Note of a turn marked by its own line = %q, want none", got)
	}
}
