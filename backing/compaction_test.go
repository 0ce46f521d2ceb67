package backing_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing"
)

func compactions(t *testing.T, s backing.Session, branchID string) []backing.Compaction {
	t.Helper()
	v, err := s.ViewID(branchID)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := backing.Compactions(v)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// everyMessage is every stored line of every branch of s, by branch id.
func everyMessage(t *testing.T, s backing.Session) map[string][][]byte {
	t.Helper()
	bs, err := s.Branches()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][][]byte{}
	for _, b := range bs {
		out[b.ID] = raws(t, s, b.ID)
	}
	return out
}

// The two lines are the documented ones, and a summary that is no text
// makes none.
func TestCompactionLines(t *testing.T) {
	lines, err := backing.CompactionLines(backing.Compaction{Summary: "we \"fixed\" it", BoundaryTurn: 2, FromBranch: "main", FromBranchID: "b1", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"role":"event","content":"","event":"compaction","data":{"summary":"we \"fixed\" it","boundary_turn":2,"from_branch":"main","from_branch_id":"b1","model":"m"}}`,
		`{"role":"user","context":"compaction","content":"we \"fixed\" it"}`,
	}
	if len(lines) != 2 || string(lines[0]) != want[0] || string(lines[1]) != want[1] {
		t.Errorf("CompactionLines =\n%s\nwant\n%s", bytes.Join(lines, []byte("\n")), strings.Join(want, "\n"))
	}
	for _, bad := range []string{"", " \n\t", "\xff"} {
		if _, err := backing.CompactionLines(backing.Compaction{Summary: bad}); !errors.Is(err, backing.ErrInvalid) {
			t.Errorf("summary %q: %v, want ErrInvalid", bad, err)
		}
	}
	// The summary is context of the turn it precedes, the event an event:
	// neither opens a turn.
	for _, l := range lines {
		if k, _, err := backing.Classify(l); err != nil || k.Prompt || (!k.Context && !k.Typed) {
			t.Errorf("%s: %+v, %v", l, k, err)
		}
	}
}

// Compact makes a new branch of the event, the summary and copies of the
// turns after the boundary (ids and all), leaves every branch as it was,
// and the new branch's compaction.json shows it; a fork of it has it too.
func TestCompact(t *testing.T) {
	s := session(t, openStore(t), "s", backing.Meta{}, time.Now())
	main := branchID(t, s, "")
	var lines [][]byte
	for k := 1; k <= 3; k++ {
		lines = append(lines, fmt.Appendf(nil, `{"role":"user","content":"q%d"}`, k), fmt.Appendf(nil, `{"role":"assistant","content":"a%d"}`, k))
	}
	if err := s.AppendID(main, lines); err != nil {
		t.Fatal(err)
	}
	before := everyMessage(t, s)

	c, err := backing.Compact(s, main, backing.CompactOptions{At: 2, Summary: "asked twice", Model: "summ-1"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Branch.Name != "main-compact-1" || c.Branch.Parent != main || c.At != 2 || c.Kept != 2 {
		t.Errorf("Compacted = %+v", c)
	}
	after := everyMessage(t, s)
	for id, msgs := range before {
		if fmt.Sprintf("%q", after[id]) != fmt.Sprintf("%q", msgs) {
			t.Errorf("branch %s changed", id)
		}
	}
	got := raws(t, s, c.Branch.ID)
	old := before[main]
	if len(got) != 4 || !bytes.Equal(got[2], old[4]) || !bytes.Equal(got[3], old[5]) {
		t.Fatalf("the new branch:\n%s", bytes.Join(got, []byte("\n")))
	}
	v, err := s.ViewID(c.Branch.ID)
	if err != nil {
		t.Fatal(err)
	}
	if v.Turns() != 1 || v.Visible() != 3 || v.Events() != 1 {
		t.Errorf("the new branch: %d turns, %d visible, %d events; want 1, 3, 1", v.Turns(), v.Visible(), v.Events())
	}
	cs := compactions(t, s, c.Branch.ID)
	want := backing.Compaction{Kind: "sessfs", Index: 0, Visible: 0, Turn: 1, Summary: "asked twice", BoundaryTurn: 2, Model: "summ-1", FromBranch: "main", FromBranchID: main}
	if len(cs) != 1 || cs[0].Time.IsZero() {
		t.Fatalf("Compactions = %+v", cs)
	}
	if cs[0].Time = (time.Time{}); cs[0] != want {
		t.Errorf("Compactions = %+v\nwant %+v", cs[0], want)
	}
	if cs := compactions(t, s, main); len(cs) != 0 {
		t.Errorf("the branch compacted has compactions %+v", cs)
	}

	// Again, the default boundary: the last turn, nothing copied; the
	// name after the first free number; a fork at 1 has the compaction.
	c2, err := backing.Compact(s, main, backing.CompactOptions{Summary: "all of it"})
	if err != nil {
		t.Fatal(err)
	}
	if c2.Branch.Name != "main-compact-2" || c2.At != 3 || c2.Kept != 0 || len(raws(t, s, c2.Branch.ID)) != 2 {
		t.Errorf("compact at the end: %+v", c2)
	}
	f, err := s.Fork(c.Branch.ID, 1, "f")
	if err != nil {
		t.Fatal(err)
	}
	if cs := compactions(t, s, f.ID); len(cs) != 1 || cs[0].Summary != "asked twice" {
		t.Errorf("the fork's compactions: %+v", cs)
	}
}

// Compact refuses a turn the branch does not have, a branch with none, a
// summary that is no text and a name taken, and leaves no branch behind.
func TestCompactRefuses(t *testing.T) {
	s := session(t, openStore(t), "s", backing.Meta{}, time.Now())
	main := branchID(t, s, "")
	if _, err := backing.Compact(s, main, backing.CompactOptions{Summary: "x"}); !errors.Is(err, backing.ErrInvalid) || !strings.Contains(err.Error(), "no turn") {
		t.Errorf("an empty branch: %v", err)
	}
	appendTexts(t, s, main, "q1", "q2")
	for _, at := range []int{-1, 3} {
		_, err := backing.Compact(s, main, backing.CompactOptions{At: at, Summary: "x"})
		if !errors.Is(err, backing.ErrInvalid) || !strings.Contains(err.Error(), "has 2 turns (compact at 1 to 2)") {
			t.Errorf("at %d: %v", at, err)
		}
	}
	if _, err := backing.Compact(s, main, backing.CompactOptions{Summary: " "}); !errors.Is(err, backing.ErrInvalid) {
		t.Errorf("a blank summary: %v", err)
	}
	if _, err := backing.Compact(s, main, backing.CompactOptions{Summary: "x", Name: "main"}); !errors.Is(err, backing.ErrExist) {
		t.Errorf("a name taken: %v", err)
	}
	if bs, _ := s.Branches(); len(bs) != 1 {
		t.Errorf("refused compactions left branches: %+v", bs)
	}
	if _, err := backing.Compact(s, "no-such-branch", backing.CompactOptions{Summary: "x"}); !errors.Is(err, backing.ErrNotFound) {
		t.Errorf("a branch that is not: %v", err)
	}
}

// Imported compactions are found by their context and the agent's line
// under "source": Claude Code's boundary and the summary after it are one
// compaction, a microcompact boundary with no summary another, Codex's
// compacted line a third; a summary with something visible between it
// and the boundary before it is one of its own; a harness's own compaction event counts, one
// with data of no object does not, and context without source_seq is no
// imported compaction.
func TestImportedCompactions(t *testing.T) {
	s := session(t, openStore(t), "s", backing.Meta{}, time.Now())
	main := branchID(t, s, "")
	lines := []string{
		`{"role":"user","content":"q1","source_seq":1,"source":{"type":"user"}}`,
		`{"role":"assistant","content":"a1","source_seq":2,"source":{"type":"assistant"}}`,
		`{"role":"system","content":"Conversation compacted","context":"compaction","ts":"2026-01-02T00:00:00Z","source_seq":3,"source":{"type":"system","subtype":"compact_boundary"}}`, // 2
		`{"role":"event","content":"","event":"x","source_seq":4}`,
		`{"role":"user","content":"This session is being continued.","context":"compaction","source_seq":5,"source":{"type":"user","isCompactSummary":true}}`,
		`{"role":"user","content":"q2","source_seq":6,"source":{"type":"user"}}`, // 5
		`{"role":"system","content":"Conversation compacted","context":"compaction","source_seq":7,"source":{"type":"system","subtype":"microcompact_boundary"}}`,
		`{"role":"assistant","content":"a2","source_seq":8}`,
		`{"role":"user","content":"late summary","context":"compaction","source_seq":9,"source":{"type":"user","isCompactSummary":true}}`, // 8: a2 between
		`{"role":"system","content":"codex summary","context":"compaction","source_seq":9,"source":{"timestamp":"t","type":"compacted","payload":{"message":"codex summary"}}}`,
		`{"role":"user","content":"not imported","context":"compaction"}`,
		`{"role":"event","content":"","event":"compaction","data":"no object"}`,
		`{"role":"event","content":"","event":"compaction","data":{"summary":"own","boundary_turn":"two"}}`, // 12
		`{"role":"user","content":"summary alone","context":"compaction","source_seq":10,"source":{"type":"user","isCompactSummary":true}}`,
	}
	var raw [][]byte
	for _, l := range lines {
		raw = append(raw, []byte(l))
	}
	if err := s.AppendID(main, raw); err != nil {
		t.Fatal(err)
	}
	type pos struct {
		kind, marker, summary string
		index, turn, boundary int
	}
	want := []pos{
		{"imported", "compact_boundary", "This session is being continued.", 2, 2, 1},
		{"imported", "microcompact_boundary", "", 6, 2, 2},
		{"imported", "isCompactSummary", "late summary", 8, 2, 2},
		{"imported", "compacted", "codex summary", 9, 2, 2},
		{"sessfs", "", "own", 12, 2, 0},
		{"imported", "isCompactSummary", "summary alone", 13, 2, 2},
	}
	check := func(cs []backing.Compaction) {
		t.Helper()
		var got []pos
		for _, c := range cs {
			got = append(got, pos{c.Kind, c.Marker, c.Summary, c.Index, c.Turn, c.BoundaryTurn})
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("Compactions\n got %v\nwant %v", got, want)
		}
	}
	cs := compactions(t, s, main)
	check(cs)
	if len(cs) > 0 && !cs[0].Time.Equal(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("the boundary's time: %v", cs[0].Time)
	}

	// Kept up to date: a log updated as the branch grows reads what was
	// appended, and finds the same as one that reads it all.
	var l backing.CompactionLog
	v, _ := s.ViewID(main)
	if err := l.Update(v); err != nil {
		t.Fatal(err)
	}
	appendTexts(t, s, main, "q3")
	if err := s.AppendID(main, [][]byte{[]byte(`{"role":"system","content":"later","context":"compaction","source_seq":11,"source":{"type":"compacted"}}`)}); err != nil {
		t.Fatal(err)
	}
	v, _ = s.ViewID(main)
	if err := l.Update(v); err != nil {
		t.Fatal(err)
	}
	// q3 opens turn 3 at the context before it, back to the compacted
	// line after a2: their turns are the grown branch's.
	want = []pos{
		want[0], want[1],
		{"imported", "isCompactSummary", "late summary", 8, 3, 2},
		{"imported", "compacted", "codex summary", 9, 3, 3},
		{"sessfs", "", "own", 12, 3, 0},
		{"imported", "isCompactSummary", "summary alone", 13, 3, 3},
		{"imported", "compacted", "later", 15, 3, 3},
	}
	check(l.List(v))
	check(compactions(t, s, main))
}
