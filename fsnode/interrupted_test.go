package fsnode

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// An interrupted turn shows as such in every transcript, where it
// happens, and in its turns/<n>/info.json: a turn cut off without a
// turn_end before the heading of the turn that follows, an event that
// marks its turn where it stands. The transcript only grows as the
// branch does: what it showed before a later turn began stays.
func TestInterruptedTurns(t *testing.T) {
	st := newStore(t)
	s, main := sessionS(t, st)
	appendLines(t, s, main.ID,
		`{"role":"user","content":"q1"}`, `{"role":"assistant","content":"a1"}`,
		`{"role":"event","content":"","event":"turn_end","data":{}}`,
		`{"role":"user","content":"q2"}`, `{"role":"assistant","content":"a2, then a crash"}`,
	)
	k := newKernel(t, st, Options{})
	before := k.catFile("s/transcript.md", 4096)
	appendLines(t, s, main.ID,
		`{"role":"user","content":"q3"}`,
		`{"role":"event","content":"","event":"run_errored","data":{"error":"overloaded"}}`,
		`{"role":"user","content":"q4"}`, `{"role":"assistant","content":"a4"}`,
	)
	md := k.catFile("s/transcript.md", 4096)
	if a, _ := k.stat("s/transcript.md"); a.Size != uint64(len(md)) {
		t.Errorf("transcript.md: stat %d, read %d bytes", a.Size, len(md))
	}
	if !bytes.HasPrefix(md, before[:bytes.LastIndex(before, []byte("a2, then"))]) {
		t.Errorf("the transcript changed before its end:\nbefore %s\nafter %s", before, md)
	}
	for _, want := range []string{
		"a2, then a crash\n\n_[turn 2 was interrupted: it has no turn\\_end]_\n\n## Turn 3\n\n",
		"q3\n\n_[run errored: overloaded]_\n\n## Turn 4",
	} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("transcript.md lacks %q:\n%s", want, md)
		}
	}
	if n := bytes.Count(md, []byte("interrupted")) + bytes.Count(md, []byte("errored")); n != 2 {
		t.Errorf("transcript.md marks %d interruptions, want 2:\n%s", n, md)
	}
	for _, f := range []string{"s/transcript.redacted.md", "s/branches/main/transcript.md"} {
		if got := k.catFile(f, 4096); !bytes.Contains(got, []byte("turn 2 was interrupted")) || !bytes.Contains(got, []byte("run errored: overloaded")) {
			t.Errorf("%s lacks the marks:\n%s", f, got)
		}
	}
	if html := k.catFile("s/transcript.html", 4096); bytes.Count(html, []byte(`<p class="mark">`)) != 2 {
		t.Errorf("transcript.html does not mark both turns:\n%s", html)
	}
	if got := k.catFile("s/turns/3/transcript.md", 4096); !bytes.Contains(got, []byte("run errored")) {
		t.Errorf("turns/3/transcript.md = %s", got)
	}

	for turn, want := range map[string]turnInfoDoc{
		"1": {Turn: 1, Messages: 2, Ending: backing.Ending{Ended: true}},
		"2": {Turn: 2, Messages: 2, Ending: backing.Ending{Interrupted: true, CutOff: true}},
		"3": {Turn: 3, Messages: 1, Ending: backing.Ending{Interrupted: true, Reason: "overloaded"}},
		"4": {Turn: 4, Messages: 2},
	} {
		path := "s/turns/" + turn + "/info.json"
		data := k.catFile(path, 5)
		var got turnInfoDoc
		if err := json.Unmarshal(data, &got); err != nil || got != want {
			t.Errorf("%s = %s (%v), want %+v", path, data, err, want)
		}
		if a, _ := k.stat(path); a.Size != uint64(len(data)) {
			t.Errorf("%s: stat %d, read %d", path, a.Size, len(data))
		}
	}
}

// A branch that never writes turn_end, as every imported session, has no
// turn marked interrupted by its absence; an imported note that the user
// interrupted the agent marks the turn before it.
func TestInterruptedNeverWithoutTurnEnd(t *testing.T) {
	st := newStore(t)
	s, _, err := st.Create("s", backing.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	appendLines(t, s, "",
		`{"role":"user","content":"q1","source_seq":1}`, `{"role":"assistant","content":"a1","source_seq":2}`,
		`{"role":"event","content":"","event":"usage","data":{"input":1}}`,
		`{"role":"user","content":"q2","source_seq":3}`, `{"role":"assistant","content":"a2","source_seq":4}`,
		`{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}],"context":"interruption","source_seq":5}`,
		`{"role":"user","content":"q3","source_seq":6}`,
	)
	k := newKernel(t, st, Options{})
	md := k.catFile("s/transcript.md", 4096)
	if bytes.Contains(md, []byte("was interrupted")) {
		t.Errorf("a branch without turn_end has a turn cut off:\n%s", md)
	}
	info := func(turn string) turnInfoDoc {
		var d turnInfoDoc
		json.Unmarshal(k.catFile("s/turns/"+turn+"/info.json", 4096), &d)
		return d
	}
	if d := info("1"); d.Interrupted {
		t.Errorf("turn 1: %+v", d)
	}
	if d := info("2"); !d.Interrupted || d.CutOff || !strings.Contains(d.Reason, "user") {
		t.Errorf("turn 2, interrupted by the user: %+v", d)
	}
}
