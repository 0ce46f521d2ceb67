package integration

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// Events and interrupted turns through a real mount: a turn_end and a
// run_errored written to append with printf and python3, and a usage
// event by `sessfs event`; cat events.jsonl has them as stored (and no
// message), its size as stat says; transcript.md marks the turn cut off
// without a turn_end and the one whose run errored; turns/<n>/info.json
// says how each turn ended.
func TestEventsThroughMount(t *testing.T) {
	m, dir := appendFixture(t) // two turns, no turn_end: nothing is interrupted
	if md := cat(t, dir+"/transcript.md"); strings.Contains(md, "interrupted") {
		t.Fatalf("a session without turn_end shows an interruption:\n%s", md)
	}
	sh(t, `printf '%s\n' '{"role":"event","content":"","event":"turn_end","data":{}}' >> "$1/append"`, dir)
	sh(t, `echo "A third question, then a crash" >> "$1/append"`, dir)
	sh(t, `echo "Fourth question" >> "$1/append"`, dir)
	py(t, `
with open(A[0] + "/append", "a") as f:
    f.write(json.dumps({"role": "event", "content": "", "event": "run_errored", "data": {"error": "overloaded"}}) + "\n")
`, dir)
	// A broken documented event is refused, and nothing is stored.
	wantErrno(t, "EINVAL", "a turn_end whose interrupted is not a boolean", `
with open(A[0] + "/append", "a") as f:
    f.write('{"role":"event","content":"","event":"turn_end","data":{"interrupted":"yes"}}\n')
`, dir)
	cli(t, m.StoreDir, "event", "s", "usage", "--data", `{"input":1000,"output":10,"model":"claude-sonnet-4"}`)

	var events []string
	eventually(t, 2*time.Second, "the CLI's event in events.jsonl", func() (bool, string) {
		data := cat(t, dir+"/events.jsonl")
		events = lines(data)
		return len(events) == 3, data
	})
	for i, kind := range []string{"turn_end", "run_errored", "usage"} {
		var e struct{ Role, Event string }
		if err := json.Unmarshal([]byte(events[i]), &e); err != nil || e.Role != "event" || e.Event != kind {
			t.Errorf("events.jsonl line %d = %s (%v), want a %s event", i+1, events[i], err, kind)
		}
	}
	if data := cat(t, dir+"/events.jsonl"); statSize(t, dir+"/events.jsonl") != int64(len(data)) {
		t.Errorf("events.jsonl: stat %d, cat %d bytes", statSize(t, dir+"/events.jsonl"), len(data))
	}
	if err := os.WriteFile(dir+"/events.jsonl", []byte("x\n"), 0o644); err == nil {
		t.Error("events.jsonl took a write")
	}

	md := cat(t, dir+"/transcript.md")
	for _, want := range []string{
		"_[turn 3 was interrupted: it has no turn\\_end]_\n\n## Turn 4",
		"_[run errored: overloaded]_",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("transcript.md lacks %q:\n%s", want, md)
		}
	}
	if statSize(t, dir+"/transcript.md") != int64(len(md)) {
		t.Errorf("transcript.md: stat %d, cat %d", statSize(t, dir+"/transcript.md"), len(md))
	}
	for turn, want := range map[string]string{"2": "false", "3": "true", "4": "true"} {
		_, got := py(t, `print(str(json.load(open(A[0]))["interrupted"]).lower())`, dir+"/turns/"+turn+"/info.json")
		if strings.TrimSpace(got) != want {
			t.Errorf("turns/%s/info.json interrupted = %q, want %s", turn, got, want)
		}
	}
}
