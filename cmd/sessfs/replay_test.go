package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/integration/realdata"
)

// Replay's clock is a recorder: the tests never wait, and check each wait
// a replay asks for, where it falls among what it prints.

// played is what a replay did, in order: "out:" text it printed, "err:"
// text for the person at the terminal, "wait:" a wait it asked for, "read"
// a read of its input.
type played struct {
	code  int
	out   string
	log   []string
	waits []time.Duration
}

// logWriter adds what is written to a played's log under a tag.
type logWriter struct {
	p   *played
	tag string
}

func (w logWriter) Write(b []byte) (int, error) {
	if w.tag == "out" {
		w.p.out += string(b)
	}
	w.p.log = append(w.p.log, w.tag+":"+string(b))
	return len(b), nil
}

// lineReader gives one byte a read, logging each, so that every line the
// replay takes is one read in the log.
type lineReader struct {
	p    *played
	data string
}

func (r *lineReader) Read(b []byte) (int, error) {
	if r.data == "" {
		return 0, io.EOF
	}
	r.p.log = append(r.p.log, "read")
	b[0], r.data = r.data[0], r.data[1:]
	return 1, nil
}

// play runs `sessfs replay` in process on store s with stdin.
func play(t *testing.T, s *store, stdin string, args ...string) *played {
	t.Helper()
	p := &played{}
	sleep := func(d time.Duration) {
		p.waits = append(p.waits, d)
		p.log = append(p.log, fmt.Sprint("wait:", d))
	}
	in := &lineReader{p: p, data: stdin}
	p.code = replayMain(append([]string{"--store", s.dir}, args...), in, logWriter{p, "out"}, logWriter{p, "err"}, sleep)
	return p
}

func playOK(t *testing.T, s *store, stdin string, args ...string) *played {
	t.Helper()
	p := play(t, s, stdin, args...)
	if p.code != exitOK {
		t.Fatalf("replay %v: exit %d", args, p.code)
	}
	return p
}

var t0 = time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)

func at(d time.Duration) string { return t0.Add(d).Format(time.RFC3339Nano) }

// pacedSession is session r, made for its times: three turns, two tool
// calls, an event far ahead of its neighbours, a message at the time of
// the one before, an hour's pause, a time that does not parse, and a
// checkpoint "mid" inside turn 1 (after the first tool call).
func pacedSession(t *testing.T) *store {
	s := newStore(t)
	s.ok("new", "r")
	lines := []string{
		fmt.Sprintf(`{"role":"user","content":"q1","ts":%q}`, at(0)),
		fmt.Sprintf(`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}],"ts":%q}`, at(2*time.Second)),
		fmt.Sprintf(`{"role":"event","content":"","event":"checkpoint","data":{"name":"mid"},"ts":%q}`, at(2*time.Second)),
		fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a.txt"}],"ts":%q}`, at(3*time.Second)),
		fmt.Sprintf(`{"role":"event","content":"","event":"usage","data":{},"ts":%q}`, at(100*time.Second)),
		fmt.Sprintf(`{"role":"assistant","content":"a1","ts":%q}`, at(10*time.Second)),
		fmt.Sprintf(`{"role":"user","content":"q2","ts":%q}`, at(10*time.Second)),
		fmt.Sprintf(`{"role":"assistant","content":"a2","ts":%q}`, at(time.Hour+10*time.Second)),
		`{"role":"user","content":"q3","ts":"some day"}`,
		fmt.Sprintf(`{"role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"a.txt"}}],"ts":%q}`, at(time.Hour+14*time.Second)),
		fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"hi"}],"ts":%q}`, at(time.Hour+15*time.Second)),
		fmt.Sprintf(`{"role":"assistant","content":"done","ts":%q}`, at(time.Hour+15500*time.Millisecond)),
	}
	s.okStdin(strings.Join(lines, "\n")+"\n", "append", "r", "-")
	return s
}

func ms(n float64) time.Duration { return time.Duration(n * float64(time.Millisecond)) }

// The waits are the recorded gaps divided by --speed, at most 5 s each;
// events (which the transcript leaves out), a time equal to the last one
// and a time that does not parse wait for nothing; the output is the
// transcript's, whatever the pace.
func TestReplaySpeedAndCap(t *testing.T) {
	s := pacedSession(t)
	transcript := s.ok("show", "r")
	for _, c := range []struct {
		speed string
		want  []time.Duration
	}{
		{"1", []time.Duration{2 * time.Second, time.Second, 5 * time.Second, 5 * time.Second, 4 * time.Second, time.Second, ms(500)}},
		{"2", []time.Duration{time.Second, ms(500), ms(3500), 5 * time.Second, 2 * time.Second, ms(500), ms(250)}},
		{"1000", []time.Duration{ms(2), ms(1), ms(7), ms(3600), ms(4), ms(1), ms(0.5)}},
	} {
		p := playOK(t, s, "", "--speed", c.speed, "r")
		if !slices.Equal(p.waits, c.want) {
			t.Errorf("--speed %s: waits %v, want %v", c.speed, p.waits, c.want)
		}
		if p.out != transcript {
			t.Errorf("--speed %s printed\n%s\nwant sessfs show's\n%s", c.speed, p.out, transcript)
		}
	}
	// The default speed is real time, capped.
	if p := playOK(t, s, "", "r"); len(p.waits) != 7 || p.waits[0] != 2*time.Second || p.waits[2] != maxReplayGap {
		t.Errorf("no --speed: waits %v", p.waits)
	}
	// A wait comes before the message it paces, never after: the first
	// wait follows the first message and precedes the tool call.
	p := playOK(t, s, "", "r")
	i := slices.Index(p.log, "wait:2s")
	before := strings.Join(p.log[:i], "")
	if i < 0 || !strings.Contains(before, "q1") || strings.Contains(before, "Bash") {
		t.Errorf("the first wait is not between q1 and the tool call: %q", p.log)
	}
}

// --no-wait prints the transcript and asks for no wait.
func TestReplayNoWait(t *testing.T) {
	s := pacedSession(t)
	p := playOK(t, s, "", "--no-wait", "r")
	if len(p.waits) != 0 || p.out != s.ok("show", "r") {
		t.Errorf("--no-wait: waits %v, printed\n%s", p.waits, p.out)
	}
	s.fails(exitUsage, "not both", "", "replay", "--no-wait", "--speed", "2", "r")
	for _, bad := range []string{"0", "-1", "NaN", "Inf"} {
		s.fails(exitUsage, "--speed", "", "replay", "--speed", bad, "r")
	}
}

// --json prints the stored lines, events included, each paced by its own
// time, as messages.jsonl holds them.
func TestReplayJSON(t *testing.T) {
	s := pacedSession(t)
	p := playOK(t, s, "", "--json", "r")
	if want := s.ok("show", "--format", "jsonl", "r"); p.out != want {
		t.Errorf("--json printed\n%s\nwant\n%s", p.out, want)
	}
	// q1; the call +2s; the checkpoint +0; the result +1s; the usage
	// event +97s (5 s); a1 before it (no wait); q2 +0; a2 +1h (5 s); q3
	// unparsed; the call 4 s after a2; +1s; +0.5s.
	want := []time.Duration{2 * time.Second, time.Second, 5 * time.Second, 5 * time.Second, 4 * time.Second, time.Second, ms(500)}
	if !slices.Equal(p.waits, want) {
		t.Errorf("--json waits %v, want %v", p.waits, want)
	}
}

// --from and --to are turns, as show --turn and fork --at count them.
func TestReplayFromTo(t *testing.T) {
	s := pacedSession(t)
	turn := func(k int) string { return s.ok("show", "--turn", fmt.Sprint(k), "r") }
	if p := playOK(t, s, "", "--no-wait", "--from", "2", "--to", "3", "r"); p.out != turn(2)+turn(3) {
		t.Errorf("--from 2 --to 3 printed\n%s\nwant turns 2 and 3\n%s", p.out, turn(2)+turn(3))
	}
	if p := playOK(t, s, "", "--no-wait", "--from", "2", "--to", "2", "r"); p.out != turn(2) {
		t.Errorf("--from 2 --to 2 printed\n%s", p.out)
	}
	if p := playOK(t, s, "", "--no-wait", "--from", "3", "r"); p.out != turn(3) {
		t.Errorf("--from 3 printed\n%s", p.out)
	}
	// From the start: the header too, as sessfs show.
	full := s.ok("show", "r")
	if p := playOK(t, s, "", "--no-wait", "--to", "1", "r"); p.out != full[:strings.Index(full, "## Turn 2")] {
		t.Errorf("--to 1 printed\n%s", p.out)
	}
	// Paced as a whole replay is, from the first message it prints: turn
	// 3 opens with q3, whose time does not parse, then the call 4 s after
	// a2, which this replay has not printed, so it waits from nothing.
	if p := playOK(t, s, "", "--from", "3", "r"); !slices.Equal(p.waits, []time.Duration{time.Second, ms(500)}) {
		t.Errorf("--from 3 waits %v", p.waits)
	}
	s.fails(exitUsage, "turns count from 1", "", "replay", "--from", "0", "r")
	s.fails(exitUsage, "turns count from 1", "", "replay", "--to", "0", "r")
	s.fails(exitUsage, "before --from", "", "replay", "--from", "3", "--to", "2", "r")
	s.fails(exitFail, "turn 4", "", "replay", "--from", "4", "r")
}

// --checkpoint starts after the mark, with the heading of its turn; the
// checkpoint can be written as an event line (as pacedSession appends it)
// or by sessfs checkpoint.
func TestReplayCheckpoint(t *testing.T) {
	s := pacedSession(t)
	full := s.ok("show", "r")
	rest := full[strings.Index(full, "**tool result**"):]
	p := playOK(t, s, "", "--checkpoint", "mid", "r")
	if p.out != "## Turn 1\n\n"+rest {
		t.Errorf("--checkpoint mid printed\n%s\nwant turn 1's heading, then\n%s", p.out, rest)
	}
	// The result is the first message printed: it waits for nothing.
	if want := []time.Duration{5 * time.Second, 5 * time.Second, 4 * time.Second, time.Second, ms(500)}; !slices.Equal(p.waits, want) {
		t.Errorf("--checkpoint mid waits %v, want %v", p.waits, want)
	}
	if p := playOK(t, s, "", "--no-wait", "--checkpoint", "mid", "--to", "1", "r"); p.out != "## Turn 1\n\n"+rest[:strings.Index(rest, "## Turn 2")] {
		t.Errorf("--checkpoint mid --to 1 printed\n%s", p.out)
	}
	if p := playOK(t, s, "", "--no-wait", "--json", "--checkpoint", "mid", "r"); !strings.HasPrefix(p.out, `{"id":`) || !strings.Contains(lines(p.out)[0], `"event":"checkpoint"`) {
		t.Errorf("--json --checkpoint mid starts with %q, want the checkpoint's own line", lines(p.out)[0])
	}

	s.ok("checkpoint", "r", "end")
	if p := playOK(t, s, "", "--checkpoint", "end", "r"); p.out != "" {
		t.Errorf("a checkpoint at the head plays %q", p.out)
	}
	s.fails(exitFail, "ends before checkpoint", "", "replay", "--checkpoint", "end", "--to", "2", "r")
	s.fails(exitFail, `checkpoint "nope"`, "", "replay", "--checkpoint", "nope", "r")
	s.fails(exitUsage, "not both", "", "replay", "--checkpoint", "mid", "--from", "1", "r")
}

// --pause-at-tools reads a line of input after each message that calls a
// tool, having said so on stderr, before anything more is printed; at the
// end of the input it goes on without pausing.
func TestReplayPauseAtTools(t *testing.T) {
	s := pacedSession(t)
	p := playOK(t, s, "\n\n", "--pause-at-tools", "--no-wait", "r")
	var seq []string // the log, outputs named by what they show
	for _, e := range p.log {
		switch {
		case strings.HasPrefix(e, "err:[tool call"):
			seq = append(seq, "prompt")
		case e == "read":
			seq = append(seq, "read")
		case strings.HasPrefix(e, "out:"):
			seq = append(seq, "out")
		}
	}
	want := []string{"out", "prompt", "read", "out", "prompt", "read", "out"}
	if !slices.Equal(seq, want) {
		t.Fatalf("pauses: %q, want %q (log %q)", seq, want, p.log)
	}
	if first := p.log[0]; !strings.Contains(first, "`Bash`") || strings.Contains(first, "tool result") {
		t.Errorf("the first pause is not right after the first call: printed before it %q", first)
	}
	if p.out != s.ok("show", "r") {
		t.Errorf("pausing changed the output:\n%s", p.out)
	}
	// No input: one prompt, then on without pausing.
	p = playOK(t, s, "", "--pause-at-tools", "--no-wait", "r")
	if n := strings.Count(strings.Join(p.log, ""), "[tool call"); n != 1 || p.out != s.ok("show", "r") {
		t.Errorf("with no input: %d prompts, printed\n%s", n, p.out)
	}
	// As stored lines too.
	p = playOK(t, s, "\n\n", "--pause-at-tools", "--no-wait", "--json", "r")
	if n := strings.Count(strings.Join(p.log, ""), "[tool call"); n != 2 {
		t.Errorf("--json: %d prompts, want 2", n)
	}
}

// Real sessions play as their transcript, paced by their own times: each
// visible message waits its gap from the one before, divided by the
// speed, at most 5 s.
func TestReplayRealSessions(t *testing.T) {
	files, err := realdata.Files("claude-code", "codex")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Skip("no real sessions beside the repository (../shared/data)")
	}
	s := newStore(t)
	played := 0
	for _, f := range files {
		base := filepath.Base(f)
		if base != "hello-world-script.jsonl" && !strings.HasPrefix(base, "rollout-2026-02-23T13-19-38") {
			continue
		}
		name := strings.TrimSpace(s.ok("import", f))
		var want []time.Duration
		var prev time.Time
		for _, line := range lines(s.ok("show", "--format", "jsonl", name)) {
			var m struct{ Role, TS string }
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatal(err)
			}
			ts, err := time.Parse(time.RFC3339Nano, m.TS)
			if m.Role == backing.EventRole || err != nil {
				continue
			}
			if d := ts.Sub(prev) / 3; !prev.IsZero() && d > 0 {
				want = append(want, min(d, 5*time.Second))
			}
			prev = ts
		}
		p := playOK(t, s, "", "--speed", "3", name)
		if !slices.Equal(p.waits, want) {
			t.Errorf("%s: waits %v, want %v", base, p.waits, want)
		}
		if p.out != s.ok("show", name) {
			t.Errorf("%s: the replay is not the transcript", base)
		}
		if len(want) == 0 {
			t.Errorf("%s: no wait at all", base)
		}
		played++
	}
	if played != 2 {
		t.Errorf("played %d real sessions, want 2", played)
	}
}
