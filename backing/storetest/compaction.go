package storetest

import (
	"bytes"
	"slices"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// viewCompaction: a compaction (backing.Compact) is a new branch, a fork
// at 0 of the one compacted, holding the event, the summary and the
// stored lines of the turns kept, byte for byte with their ids; it opens
// no turn of its own; every branch is as it was; appending a kept
// message again is a retry.
func viewCompaction(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", qa("", 3)...)
	main := defaultBranch(t, s)
	before := readAll(t, view(t, s, main.ID))
	c, err := backing.Compact(s, main.ID, backing.CompactOptions{At: 1, Summary: "q1 was asked"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Branch.Parent != main.ID || c.Kept != 4 {
		t.Errorf("Compact = %+v; want a fork of main, 4 messages kept", c)
	}
	after := readAll(t, view(t, s, main.ID))
	if len(after) != len(before) {
		t.Fatalf("main has %d messages, had %d", len(after), len(before))
	}
	if got, want := contents(t, s, c.Branch.ID), []string{"", "q1 was asked", "q2", "a2", "q3", "a3"}; !slices.Equal(got, want) {
		t.Errorf("the compacted branch = %q, want %q", got, want)
	}
	v := view(t, s, c.Branch.ID)
	got := readAll(t, v)
	for i := 2; i < len(got); i++ {
		if !bytes.Equal(got[i].Raw, before[i].Raw) {
			t.Errorf("kept message %d: %s, want %s", i, got[i].Raw, before[i].Raw)
		}
	}
	if v.Turns() != 2 || v.Inherited() != 0 || v.Events() != 1 || v.TurnOf(0) != 1 || v.TurnOf(2) != 1 {
		t.Errorf("the compacted branch: %d turns, %d inherited, %d events; want 2, 0, 1", v.Turns(), v.Inherited(), v.Events())
	}
	cs, err := backing.Compactions(v)
	if err != nil || len(cs) != 1 || cs[0].Kind != backing.CompactionSessfs || cs[0].Summary != "q1 was asked" || cs[0].BoundaryTurn != 1 || cs[0].FromBranchID != main.ID {
		t.Errorf("Compactions = %+v, %v", cs, err)
	}
	appendOK(t, s, c.Branch.ID, before[5].Raw)
	if n := view(t, s, c.Branch.ID).Len(); n != 6 {
		t.Errorf("a kept message appended again: %d messages, want 6", n)
	}
}
