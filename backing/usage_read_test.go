package backing_test

import (
	"fmt"
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

// spent is an appended assistant message that spent in input tokens.
func spent(id string, in int64) []byte {
	return fmt.Appendf(nil, `{"id":%q,"role":"assistant","content":"x","model":"claude-sonnet-4","usage":{"input":%d,"output":1}}`, id, in)
}

func usageSession(t *testing.T) backing.Session {
	t.Helper()
	st, err := filestore.Open(t.TempDir(), filestore.Options{Sync: filestore.SyncNone})
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := st.Create("s", backing.Meta{Model: "meta-model"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustAppend(t *testing.T, s backing.Session, branch string, msgs ...[]byte) {
	t.Helper()
	if err := s.AppendID(branch, msgs); err != nil {
		t.Fatal(err)
	}
}

func sessionInput(t *testing.T, s backing.Session) int64 {
	t.Helper()
	tl, err := backing.UsageOfSession(s)
	if err != nil {
		t.Fatal(err)
	}
	return tl.Total().Input
}

// A session's usage is every message of every branch once: a fork adds
// what is appended to it and nothing of what it inherits, and a rewind
// (a fork before the head) lowers nothing. A branch's usage is its view.
func TestSessionUsageIsMonotonic(t *testing.T) {
	s := usageSession(t)
	mustAppend(t, s, "", []byte(`{"role":"user","content":"q"}`), spent("a", 1), spent("b", 10))
	if got := sessionInput(t, s); got != 11 {
		t.Fatalf("session input %d, want 11", got)
	}
	fork, err := s.Fork("", 2, "rewind") // keeps the prompt and a
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, fork.ID, spent("c", 100))
	if got := sessionInput(t, s); got != 111 {
		t.Errorf("session input after a rewind and an append to it: %d, want 111", got)
	}
	for branch, want := range map[string]int64{"": 11, fork.ID: 101} {
		v, err := s.ViewID(branch)
		if err != nil {
			t.Fatal(err)
		}
		var vu backing.ViewUsage
		if err := vu.Update(v, ""); err != nil {
			t.Fatal(err)
		}
		if got := vu.Tally().Total().Input; got != want {
			t.Errorf("branch %q input %d, want %d", v.Branch().Name, got, want)
		}
	}
	// The same message (id) appended to both branches counts once in the
	// session, and in each branch.
	mustAppend(t, s, "", spent("d", 1000))
	mustAppend(t, s, fork.ID, spent("d", 1000))
	if got := sessionInput(t, s); got != 1111 {
		t.Errorf("one response in two branches: session input %d, want 1111", got)
	}
}

// Update reads only what was stored since the last one, and comes to what
// a fresh reading does; a deleted branch takes its usage with it.
func TestSessionUsageUpdate(t *testing.T) {
	s := usageSession(t)
	var su backing.SessionUsage
	var seen []int64
	update := func() int64 {
		t.Helper()
		if err := su.Update(s, func(sp backing.Spend) { seen = append(seen, sp.Usage.Input) }); err != nil {
			t.Fatal(err)
		}
		if fresh := sessionInput(t, s); fresh != su.Tally().Total().Input {
			t.Errorf("updated %d, fresh %d", su.Tally().Total().Input, fresh)
		}
		return su.Tally().Total().Input
	}
	mustAppend(t, s, "", spent("a", 1))
	update()
	fork, err := s.Fork("", backing.Head, "x")
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, fork.ID, spent("b", 10))
	mustAppend(t, s, "", spent("c", 100))
	if got := update(); got != 111 {
		t.Errorf("input %d, want 111", got)
	}
	if fmt.Sprint(seen) != "[1 100 10]" && fmt.Sprint(seen) != "[1 10 100]" {
		t.Errorf("spends reported %v: each message once", seen)
	}
	if err := s.DeleteBranch(fork.ID); err != nil {
		t.Fatal(err)
	}
	if got := update(); got != 101 {
		t.Errorf("after deleting the fork: %d, want 101", got)
	}
}

// A Codex count before any turn_context is the session's model's; a
// turn's usage is its range.
func TestTurnUsageAndFallbackModel(t *testing.T) {
	s := usageSession(t)
	count := `{"role":"event","content":"","source":{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"total_tokens":%d},"last_token_usage":{"input_tokens":%d}}}}}`
	mustAppend(t, s, "",
		[]byte(`{"role":"user","content":"one"}`), fmt.Appendf(nil, count, 5, 5),
		[]byte(`{"role":"user","content":"two"}`), []byte(`{"role":"event","content":"","source":{"type":"turn_context","payload":{"model":"gpt-5.3-codex"}}}`), fmt.Appendf(nil, count, 12, 7))
	v, err := s.ViewID("")
	if err != nil {
		t.Fatal(err)
	}
	if v.Turns() != 2 {
		t.Fatalf("%d turns", v.Turns())
	}
	for k, want := range map[int]string{1: "map[meta-model:5]", 2: "map[gpt-5.3-codex:7]"} {
		from, to, err := v.TurnRange(k)
		if err != nil {
			t.Fatal(err)
		}
		tl, err := backing.UsageOfRange(v, from, to, "meta-model")
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int64{}
		for m, u := range tl.ByModel() {
			got[m] = u.Input
		}
		if fmt.Sprint(got) != want {
			t.Errorf("turn %d: %v, want %s", k, got, want)
		}
	}
}
