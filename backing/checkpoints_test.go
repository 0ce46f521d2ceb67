package backing_test

import (
	"errors"
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing"
)

func checkpointLine(t *testing.T, name string) []byte {
	t.Helper()
	line, err := backing.CheckpointEvent(name)
	if err != nil {
		t.Fatal(err)
	}
	return line
}

func checkpoints(t *testing.T, s backing.Session, branchID string) []backing.Checkpoint {
	t.Helper()
	v, err := s.ViewID(branchID)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := backing.Checkpoints(v)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// The event line is the documented one, and a bad name makes none.
func TestCheckpointEvent(t *testing.T) {
	if got := string(checkpointLine(t, `a "b"`)); got != `{"role":"event","content":"","event":"checkpoint","data":{"name":"a \"b\""}}` {
		t.Errorf("CheckpointEvent = %s", got)
	}
	for _, bad := range []string{"", ".x", "a/b", "a\nb", string(make([]byte, 256))} {
		if _, err := backing.CheckpointEvent(bad); !errors.Is(err, backing.ErrBadName) {
			t.Errorf("CheckpointEvent(%q): %v, want ErrBadName", bad, err)
		}
	}
}

// Checkpoints are found among the typed events, where they stand, with
// their turn and visible count; a name marked again moves; lines of
// another kind, without a valid name, or imported mark nothing; a fork
// has those before its fork point.
func TestCheckpoints(t *testing.T) {
	s := session(t, openStore(t), "s", backing.Meta{}, time.Now())
	main := branchID(t, s, "")
	if cs := checkpoints(t, s, main); len(cs) != 0 {
		t.Fatalf("an empty branch has checkpoints %+v", cs)
	}
	if err := s.AppendID(main, [][]byte{checkpointLine(t, "start")}); err != nil {
		t.Fatal(err)
	}
	appendTexts(t, s, main, "q1")
	if err := s.AppendID(main, [][]byte{
		[]byte(`{"role":"assistant","content":"a1"}`),
		checkpointLine(t, "one"), // 3
		[]byte(`{"role":"event","content":"","event":"checkpoint","data":{"name":"../x"}}`),
		[]byte(`{"role":"event","content":"","event":"checkpoint","data":{"Name":"y"}}`),
		[]byte(`{"role":"event","content":"","event":"checkpoint","data":"z"}`),
		[]byte(`{"role":"event","content":"","event":"checkpoint","data":{"name":"imp"},"source_seq":4}`),
		[]byte(`{"role":"event","content":"","event":"tasks","data":{"name":"tasks"}}`),
	}); err != nil {
		t.Fatal(err)
	}
	appendTexts(t, s, main, "q2")                                                  // 9
	if err := s.AppendID(main, [][]byte{checkpointLine(t, "start")}); err != nil { // 10: moves
		t.Fatal(err)
	}
	cs := checkpoints(t, s, main)
	type pos struct {
		name                 string
		index, visible, turn int
	}
	var got []pos
	for _, c := range cs {
		got = append(got, pos{c.Name, c.Index, c.Visible, c.Turn})
		if c.ID == "" || c.Time.IsZero() {
			t.Errorf("checkpoint %q has no id or time: %+v", c.Name, c)
		}
	}
	want := []pos{{"one", 3, 2, 1}, {"start", 10, 3, 2}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("Checkpoints = %+v, want %+v", got, want)
	}

	x, err := s.Fork(main, 5, "x")
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.ViewID(x.ID)
	if err != nil {
		t.Fatal(err)
	}
	if c, err := backing.FindCheckpoint(v, "start"); err != nil || c.Index != 0 || c.Turn != 1 {
		t.Errorf("the fork's start: %+v, %v; want the first mark, at 0", c, err)
	}
	if _, err := backing.FindCheckpoint(v, "nope"); !errors.Is(err, backing.ErrNotFound) {
		t.Errorf("FindCheckpoint of a missing name: %v", err)
	}
}
