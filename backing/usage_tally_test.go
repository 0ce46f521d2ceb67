package backing

import (
	"fmt"
	"testing"
	"time"
)

func claudeLine(id string, in, out int64) []byte {
	return stored(fmt.Sprintf(`{"type":"assistant","message":{"model":"claude-opus-4-5-20251101","id":%q,"usage":{"input_tokens":%d,"output_tokens":%d}}}`, id, in, out))
}

func tokenCount(total, in, out int64) []byte {
	return stored(fmt.Sprintf(`{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"total_tokens":%d},"last_token_usage":{"input_tokens":%d,"output_tokens":%d}}}}`, total, in, out))
}

var turnContext = stored(`{"type":"turn_context","payload":{"model":"gpt-5.3-codex"}}`)

// The lines of one response count once; a later line that says more
// raises the count to it, never adds the whole again.
func TestTallyCountsAResponseOnce(t *testing.T) {
	tl := NewTally()
	st := tl.Stream("")
	st.Add(claudeLine("msg_a", 10, 1))
	st.Add(claudeLine("msg_a", 10, 1))
	sp := st.Add(claudeLine("msg_a", 10, 25))
	if want := (Usage{Output: 24}); sp.Usage != want {
		t.Errorf("the grown line added %+v, want %+v", sp.Usage, want)
	}
	st.Add(claudeLine("msg_b", 3, 4))
	if got, want := tl.Total(), (Usage{Input: 13, Output: 29}); got != want {
		t.Errorf("total %+v, want %+v", got, want)
	}
	if got := tl.ByModel(); len(got) != 1 || got["claude-opus-4-5-20251101"] != tl.Total() {
		t.Errorf("by model %v", got)
	}
}

// A response in two branches (its lines on both sides of a fork point)
// counts once in a tally the two branches feed.
func TestTallyStreamsShareKeys(t *testing.T) {
	tl := NewTally()
	tl.Stream("").Add(claudeLine("msg_a", 10, 1))
	tl.Stream("").Add(claudeLine("msg_a", 10, 1))
	if got := tl.Total(); got != (Usage{Input: 10, Output: 1}) {
		t.Errorf("total %+v", got)
	}
}

// Usage without a key (an appended message without an id) counts each
// time.
func TestTallyNoKey(t *testing.T) {
	tl := NewTally()
	tl.Add(Usage{Input: 1}, "m", "")
	tl.Add(Usage{Input: 1}, "m", "")
	if got := tl.Total(); got != (Usage{Input: 2}) {
		t.Errorf("total %+v", got)
	}
}

// Codex's counts name no model: the turn_context before them does; before
// any, the fallback; without one, UnknownModel. A count repeated at the
// next turn_context adds nothing.
func TestStreamCarriesTheModel(t *testing.T) {
	tl := NewTally()
	st := tl.Stream("")
	if sp := st.Add(tokenCount(5, 4, 1)); sp.Model != UnknownModel {
		t.Errorf("before any model: %q", sp.Model)
	}
	st.Add(turnContext)
	if sp := st.Add(tokenCount(15, 8, 2)); sp.Model != "gpt-5.3-codex" || sp.Usage != (Usage{Input: 8, Output: 2}) {
		t.Errorf("after turn_context: %+v", sp)
	}
	st.Add(turnContext)
	if sp := st.Add(tokenCount(15, 8, 2)); !sp.Usage.IsZero() {
		t.Errorf("a repeated count added %+v", sp.Usage)
	}
	want := ModelUsage{UnknownModel: {Input: 4, Output: 1}, "gpt-5.3-codex": {Input: 8, Output: 2}}
	if got := tl.ByModel(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("by model %v, want %v", got, want)
	}
	if sp := NewTally().Stream("gpt-5.2").Add(tokenCount(5, 4, 1)); sp.Model != "gpt-5.2" {
		t.Errorf("with a fallback: %q", sp.Model)
	}
}

func TestSpendTime(t *testing.T) {
	sp := NewTally().Stream("").Add(claudeLine("m", 1, 1))
	if want := time.Date(2026, 2, 23, 12, 19, 52, 689e6, time.UTC); !sp.Time.Equal(want) {
		t.Errorf("time %v, want %v", sp.Time, want)
	}
}
