package integration

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

// Compaction through a real mount: compaction.json reads [] with the size
// stat says; `sessfs compact` with the summary on standard input makes a
// branch that the mount shows within a second, whose compaction.json
// python3 reads and whose transcript.md shows the summary as a compaction,
// then the turn kept; main is as it was, and every message is still there.
func TestCompactionThroughMount(t *testing.T) {
	m, dir := appendFixture(t) // two turns
	if got := cat(t, dir+"/compaction.json"); got != "[]\n" || statSize(t, dir+"/compaction.json") != 3 {
		t.Errorf("compaction.json of a session never compacted = %q", got)
	}
	before := cat(t, dir+"/messages.jsonl")

	r := cliResult(t, m.StoreDir, "The user asked for the capital of France: Paris.\n", "compact", "--at", "1", "--summary", "-", "--model", "summ-1", "s")
	if r.code != 0 || r.stdout != "main-compact-1\n" {
		t.Fatalf("sessfs compact: %v", r)
	}
	b := dir + "/branches/main-compact-1"
	eventually(t, 2*time.Second, "the compacted branch in the mount", func() (bool, string) {
		got := ls(t, dir+"/branches")
		return slices.Contains(got, "main-compact-1"), strings.Join(got, " ")
	})

	doc := cat(t, b+"/compaction.json")
	if size := statSize(t, b+"/compaction.json"); size != int64(len(doc)) {
		t.Errorf("stat says %d bytes, cat reads %d", size, len(doc))
	}
	var cs []struct {
		Kind, Summary, Model string
		FromBranch           string `json:"from_branch"`
		BoundaryTurn         int    `json:"boundary_turn"`
		Message, Turn        int
		TS                   string
	}
	if err := json.Unmarshal([]byte(doc), &cs); err != nil || len(cs) != 1 || cs[0].Kind != "sessfs" || cs[0].Summary != "The user asked for the capital of France: Paris." ||
		cs[0].Model != "summ-1" || cs[0].FromBranch != "main" || cs[0].BoundaryTurn != 1 || cs[0].Message != 0 || cs[0].Turn != 1 || cs[0].TS == "" {
		t.Errorf("compaction.json = %s (%v)", doc, err)
	}
	if _, n := py(t, `print(len(json.load(open(A[0]))))`, b+"/compaction.json"); strings.TrimSpace(n) != "1" {
		t.Errorf("python3 reads %q compactions", n)
	}

	// After the header (whose title is the session's): the summary as a
	// compaction, then turn 2 of main as turn 1.
	md := cat(t, b+"/transcript.md")
	if i := strings.Index(md, "## Turn 1\n"); i >= 0 {
		md = md[i:]
	}
	compaction, kept := strings.Index(md, "**compaction**"), strings.Index(md, "And of Italy?")
	if compaction < 0 || kept < compaction || !strings.Contains(md, "The user asked for the capital of France: Paris.") ||
		strings.Contains(md, "What is the capital of France?") || strings.Contains(md, "## Turn 2") {
		t.Errorf("the compacted branch's transcript.md:\n%s", md)
	}
	if got := cat(t, dir+"/messages.jsonl"); got != before {
		t.Errorf("main changed:\n%s\nwas\n%s", got, before)
	}
	if got := cat(t, dir+"/compaction.json"); got != "[]\n" {
		t.Errorf("main's compaction.json = %q", got)
	}
	if got := len(lines(cat(t, b+"/messages.jsonl"))); got != 4 {
		t.Errorf("the compacted branch has %d lines, want the event, the summary and turn 2's 2", got)
	}
	wantErrno(t, "EACCES", "open compaction.json for writing", `open(A[0], "w")`, b+"/compaction.json")
}
