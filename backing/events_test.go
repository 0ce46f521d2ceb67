package backing_test

import (
	"errors"
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// Event builds the documented line; CheckEvent refuses data that breaks
// a kind's shape, and lets any other kind's data be.
func TestEventLines(t *testing.T) {
	line, err := backing.Event(backing.EventRunErrored, []byte(`{ "error": "rate limited", "code": 429 }`))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"role":"event","content":"","event":"run_errored","data":{"error":"rate limited","code":429}}`; string(line) != want {
		t.Errorf("Event = %s\nwant %s", line, want)
	}
	if line, err := backing.Event(backing.EventTurnEnd, nil); err != nil || string(line) != `{"role":"event","content":"","event":"turn_end","data":{}}` {
		t.Errorf("Event(turn_end, nil) = %s, %v", line, err)
	}
	for _, c := range []struct {
		kind, data string
		ok         bool
	}{
		{"usage", `{"input":10,"output":5,"cache_read":0,"cache_write":1,"reasoning":2,"model":"m","extra":"kept"}`, true},
		{"usage", `{"input":1.0}`, true},
		{"usage", `{"input":-1}`, false},
		{"usage", `{"input":"10"}`, false},
		{"usage", `{"output":1.5}`, false},
		{"usage", `{"model":7}`, false},
		{"usage", `[]`, false},
		{"config_changed", `{"model":"gpt-5"}`, true},
		{"config_changed", `{"provider":"openai","settings":{"temperature":0}}`, true},
		{"config_changed", `{"settings":"hot"}`, false},
		{"config_changed", `{}`, false},
		{"run_completed", `{}`, true},
		{"run_completed", `{"anything":[1]}`, true},
		{"run_completed", `"done"`, false},
		{"run_errored", `{"error":"boom"}`, true},
		{"run_errored", `{"error":""}`, false},
		{"run_errored", `{}`, false},
		{"run_errored", `{"error":{"code":1}}`, false},
		{"turn_end", `{}`, true},
		{"turn_end", `{"interrupted":true,"reason":"user pressed Esc"}`, true},
		{"turn_end", `{"interrupted":"yes"}`, false},
		{"turn_end", `{"reason":1}`, false},
		{"my_own_kind", `"anything"`, true},
	} {
		err := backing.CheckEvent(c.kind, []byte(c.data))
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, backing.ErrInvalid)) {
			t.Errorf("CheckEvent(%s, %s) = %v, want ok %v", c.kind, c.data, err, c.ok)
		}
	}
	for _, bad := range []string{"", " x", "a\xff"} {
		if _, err := backing.Event(bad, nil); !errors.Is(err, backing.ErrInvalid) {
			t.Errorf("Event(%q): %v, want ErrInvalid", bad, err)
		}
	}
}

// An append refuses a documented event whose data breaks its shape, in
// whatever way it came (append, the CLI), and takes an imported line of
// the same kind as the agent wrote it.
func TestPrepareChecksEvents(t *testing.T) {
	for _, c := range []struct {
		line string
		ok   bool
	}{
		{`{"role":"event","content":"","event":"turn_end","data":{"interrupted":"yes"}}`, false},
		{`{"role":"event","content":"","event":"run_errored"}`, false},
		{`{"role":"event","content":"","event":"run_completed"}`, true},
		{`{"role":"event","content":"","event":"run_errored","data":{},"source_seq":3}`, true},
		{`{"role":"user","content":"hi","event":"run_errored"}`, true},
		{`{"role":"event","content":"","event":"checkpoint","data":"x"}`, true},
	} {
		_, _, _, err := backing.Prepare([]byte(c.line), time.Now(), 1<<20)
		if (err == nil) != c.ok {
			t.Errorf("Prepare(%s) = %v, want ok %v", c.line, err, c.ok)
		}
	}
}

// usage.json and `sessfs usage` count a usage event, and a
// config_changed event's model is the model of the usage after it.
func TestUsageEvents(t *testing.T) {
	s := session(t, openStore(t), "s", backing.Meta{}, time.Now())
	main := branchID(t, s, "")
	line := func(kind, data string) []byte {
		l, err := backing.Event(kind, []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	if err := s.AppendID(main, [][]byte{
		[]byte(`{"role":"user","content":"q"}`),
		line(backing.EventUsage, `{"input":100,"output":20,"cache_read":5,"model":"claude-sonnet-4"}`),
		line(backing.EventConfigChanged, `{"model":"gpt-5","provider":"openai"}`),
		line(backing.EventUsage, `{"input":7,"output":3}`),
	}); err != nil {
		t.Fatal(err)
	}
	tl, err := backing.UsageOfSession(s)
	if err != nil {
		t.Fatal(err)
	}
	byModel := tl.ByModel()
	if got := byModel["claude-sonnet-4"]; got != (backing.Usage{Input: 100, Output: 20, CacheRead: 5}) {
		t.Errorf("claude-sonnet-4 spent %+v", got)
	}
	if got := byModel["gpt-5"]; got != (backing.Usage{Input: 7, Output: 3}) {
		t.Errorf("gpt-5 spent %+v (config_changed names the model after it); all: %+v", got, byModel)
	}
}
