package storetest

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// testViews covers View: reading any range, the counts (visible
// messages, events), RawLen, ModTime, Problems, and that a view is a
// snapshot.
func testViews(t *testing.T, open Opener) {
	cases(t, open, map[string]func(*testing.T, backing.Store){
		"Read":          viewRead,
		"ReadFork":      viewReadFork,
		"ReadRange":     viewReadRange,
		"RawLen":        viewRawLen,
		"Visible":       viewVisible,
		"AfterVisible":  viewAfterVisible,
		"Snapshot":      viewSnapshot,
		"ModTime":       viewModTime,
		"ModTimeOwn":    viewModTimeOwn,
		"Healthy":       viewHealthy,
		"Empty":         viewEmpty,
		"BranchRenamed": viewBranchRenamed,
		"Typed":         viewTyped,
		"Checkpoints":   viewCheckpoints,
		"FileSnapshots": viewFileSnapshots,
		"Compaction":    viewCompaction,
	})
}

// viewTyped: Typed is where the typed events are, events of a kind
// written through sessfs, not an imported line's nor an event without a
// kind; EventsAt is where every event is; a fork has those before its
// fork point.
func viewTyped(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	typed := func(kind string) []byte {
		return []byte(`{"role":"event","content":"","event":"` + kind + `","data":{}}`)
	}
	appendOK(t, s, "",
		msg("user", "q1"), // 0
		typed("tasks"),    // 1
		event("untyped"),  // 2
		[]byte(`{"role":"event","content":"","event":"summary","source_seq":3}`), // 3, imported
		[]byte(`{"role":"event","content":"","event":7}`),                        // 4, no kind
		msg("assistant", "a1"), // 5
		typed("memory"),        // 6
	)
	if got := view(t, s, "").Typed(); !slices.Equal(got, []int{1, 6}) {
		t.Errorf("Typed = %v, want [1 6]", got)
	}
	if got := view(t, s, "").EventsAt(); !slices.Equal(got, []int{1, 2, 3, 4, 6}) {
		t.Errorf("EventsAt = %v, want [1 2 3 4 6]", got)
	}
	x := fork(t, s, "", 3, "x")
	appendOK(t, s, x.ID, typed("checkpoint"))
	if got := view(t, s, x.ID).Typed(); !slices.Equal(got, []int{1, 3}) {
		t.Errorf("Typed of a fork at 3 with one of its own = %v, want [1 3]", got)
	}
	if got := view(t, s, x.ID).EventsAt(); !slices.Equal(got, []int{1, 2, 3}) {
		t.Errorf("EventsAt of a fork at 3 with one of its own = %v, want [1 2 3]", got)
	}
	if v := view(t, s, x.ID); v.Events() != 3 || v.Visible() != 1 {
		t.Errorf("the fork has %d events, %d visible; want 3 and 1", v.Events(), v.Visible())
	}
}

// mixed is a branch of prompts, answers, tool results, context and
// events: 11 messages, 3 events, 2 turns.
var mixed = [][]byte{
	msg("system", "sys"),                    // 0 turn 1
	event("e0"),                             // 1
	msg("user", "q1"),                       // 2
	msg("assistant", "a1"),                  // 3
	toolResult("t1"),                        // 4
	event("e1"),                             // 5
	ctx("user", "environment", "<env/>"),    // 6 turn 2
	msg("user", "q2"),                       // 7
	event("e2"),                             // 8
	msg("assistant", "a2"),                  // 9
	ctx("user", "hook", "hook feedback, 2"), // 10
}

// checkSlices reads every range [i, j) of v and compares it with the
// matching slice of the whole.
func checkSlices(t *testing.T, v backing.View) {
	t.Helper()
	all := readAll(t, v)
	if len(all) != v.Len() {
		t.Fatalf("Read(0, %d) returned %d messages", v.Len(), len(all))
	}
	for i, m := range all {
		if m.Index != i {
			t.Errorf("message %d has Index %d", i, m.Index)
		}
	}
	for i := 0; i <= v.Len(); i++ {
		for j := i; j <= v.Len(); j++ {
			part, err := v.Read(i, j)
			if err != nil || len(part) != j-i {
				t.Fatalf("Read(%d, %d) = %d messages, %v", i, j, len(part), err)
			}
			for k, m := range part {
				w := all[i+k]
				if m.Index != w.Index || m.Turn != w.Turn || m.TurnStart != w.TurnStart || !bytes.Equal(m.Raw, w.Raw) {
					t.Fatalf("Read(%d, %d)[%d] = %+v, want %+v", i, j, k, m, w)
				}
			}
		}
	}
}

func viewRead(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", mixed...)
	v := view(t, s, "")
	if v.Len() != len(mixed) {
		t.Fatalf("Len = %d, want %d", v.Len(), len(mixed))
	}
	checkSlices(t, v)
	for i, m := range readAll(t, v) {
		if got, want := body(t, m.Raw), body(t, mixed[i]); got != want {
			t.Errorf("message %d = %s, want %s", i, got, want)
		}
	}
}

// viewReadFork: ranges across the fork point read the same.
func viewReadFork(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", mixed[:5]...)
	x := fork(t, s, "", backing.Head, "x")
	appendOK(t, s, x.ID, mixed[5:8]...)
	y := fork(t, s, x.ID, backing.Head, "y")
	appendOK(t, s, y.ID, mixed[8:]...)
	v := view(t, s, y.ID)
	if v.Len() != len(mixed) || v.Inherited() != 8 {
		t.Fatalf("y: %d messages, %d inherited; want %d, 8", v.Len(), v.Inherited(), len(mixed))
	}
	checkSlices(t, v)
	// It reads as the same messages appended to one branch.
	one := newSession(t, st, "one")
	appendOK(t, one, "", mixed...)
	flat := readAll(t, view(t, one, ""))
	for i, m := range readAll(t, v) {
		w := flat[i]
		if m.Turn != w.Turn || m.TurnStart != w.TurnStart || body(t, m.Raw) != body(t, w.Raw) {
			t.Errorf("y message %d = turn %d start %v %s; one branch: turn %d start %v %s", i, m.Turn, m.TurnStart, m.Raw, w.Turn, w.TurnStart, w.Raw)
		}
	}
	if v.Events() != 3 || v.Visible() != 8 || v.Turns() != 2 {
		t.Errorf("y: %d events, %d visible, %d turns; want 3, 8, 2", v.Events(), v.Visible(), v.Turns())
	}
}

func viewReadRange(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", qa("", 2)...)
	v := view(t, s, "")
	for _, r := range [][2]int{{-1, 0}, {-1, 2}, {0, 5}, {3, 2}, {5, 5}, {4, 5}, {1, 0}} {
		_, err := v.Read(r[0], r[1])
		wantErr(t, fmt.Sprintf("Read(%d, %d) of 4", r[0], r[1]), err, backing.ErrInvalid)
	}
	for _, r := range [][2]int{{0, 0}, {4, 4}, {2, 2}} {
		if got, err := v.Read(r[0], r[1]); err != nil || len(got) != 0 {
			t.Errorf("Read(%d, %d) = %d messages, %v; want none", r[0], r[1], len(got), err)
		}
	}
}

func viewRawLen(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", mixed[:6]...)
	x := fork(t, s, "", 3, "x")
	appendOK(t, s, x.ID, mixed[6:]...)
	for _, id := range []string{"", x.ID} {
		v := view(t, s, id)
		for i, m := range readAll(t, v) {
			if v.RawLen(i) != len(m.Raw) {
				t.Errorf("branch %q: RawLen(%d) = %d, the message is %d bytes", id, i, v.RawLen(i), len(m.Raw))
			}
			one, _ := v.Read(i, i+1)
			if len(one) != 1 || len(one[0].Raw) != v.RawLen(i) {
				t.Errorf("branch %q: RawLen(%d) = %d, Read(%d, %d) = %v", id, i, v.RawLen(i), i, i+1, one)
			}
		}
	}
}

func viewVisible(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", mixed...)
	v := view(t, s, "")
	if v.Events() != 3 || v.Visible() != 8 || v.Events()+v.Visible() != v.Len() {
		t.Errorf("%d events, %d visible of %d; want 3, 8", v.Events(), v.Visible(), v.Len())
	}
	msgs := readAll(t, v)
	visible := 0
	for i := 0; i <= v.Len(); i++ {
		if got := v.VisibleBefore(i); got != visible {
			t.Errorf("VisibleBefore(%d) = %d, want %d", i, got, visible)
		}
		if i < len(msgs) && field(t, msgs[i].Raw, "role") != backing.EventRole {
			visible++
		}
	}
}

func viewAfterVisible(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", mixed...)
	v := view(t, s, "")
	// Just past the k-th visible message; events after it are left out.
	want := map[int]int{0: 0, 1: 1, 2: 3, 3: 4, 4: 5, 5: 7, 6: 8, 7: 10, 8: 11}
	for k := 0; k <= v.Visible(); k++ {
		got, err := v.AfterVisible(k)
		if err != nil || got != want[k] {
			t.Errorf("AfterVisible(%d) = %d, %v; want %d", k, got, err, want[k])
		}
		if vb := v.VisibleBefore(got); vb != k {
			t.Errorf("VisibleBefore(AfterVisible(%d)) = %d", k, vb)
		}
	}
	for _, k := range []int{-1, v.Visible() + 1, 100} {
		_, err := v.AfterVisible(k)
		wantErr(t, fmt.Sprintf("AfterVisible(%d)", k), err, backing.ErrInvalid)
	}
}

// viewSnapshot: a view keeps the messages it had; a new one sees more.
func viewSnapshot(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", qa("", 2)...)
	x := fork(t, s, "", backing.Head, "x")
	appendOK(t, s, x.ID, msg("user", "x1"))
	old, oldX := view(t, s, ""), view(t, s, x.ID)
	before := readAll(t, old)
	appendOK(t, s, "", qa("more", 2)...)
	appendOK(t, s, x.ID, msg("assistant", "x2"))
	if old.Len() != 4 || old.Visible() != 4 || old.Turns() != 2 {
		t.Errorf("an old view changed: %d messages, %d visible, %d turns", old.Len(), old.Visible(), old.Turns())
	}
	after := readAll(t, old)
	for i := range before {
		if !bytes.Equal(before[i].Raw, after[i].Raw) {
			t.Errorf("an old view's message %d changed", i)
		}
	}
	_, err := old.Read(0, 5)
	wantErr(t, "Read past an old view's end", err, backing.ErrInvalid)
	if oldX.Len() != 5 {
		t.Errorf("an old view of x has %d messages, want 5", oldX.Len())
	}
	if v := view(t, s, ""); v.Len() != 8 || v.Turns() != 4 {
		t.Errorf("a new view: %d messages, %d turns; want 8, 4", v.Len(), v.Turns())
	}
	if v := view(t, s, x.ID); v.Len() != 6 {
		t.Errorf("a new view of x: %d messages, want 6", v.Len())
	}
}

// viewModTime: a new view's ModTime moves forward with its branch's own
// appends.
func viewModTime(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	prev := view(t, s, "").ModTime()
	if prev.IsZero() {
		t.Error("ModTime of a new branch is zero")
	}
	for i := range 3 {
		pastTick(prev)
		appendOK(t, s, "", msg("user", fmt.Sprint(i)))
		got := view(t, s, "").ModTime()
		if !got.After(prev) {
			t.Errorf("ModTime after append %d = %v, want after %v", i, got, prev)
		}
		if got.After(time.Now().Add(time.Minute)) {
			t.Errorf("ModTime %v is in the future", got)
		}
		prev = got
	}
}

// viewModTimeOwn: a branch's ModTime is its own messages': appends to its
// parent or its children do not move it.
func viewModTimeOwn(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", msg("user", "q"))
	x := fork(t, s, "", backing.Head, "x")
	appendOK(t, s, x.ID, msg("user", "x"))
	y := fork(t, s, x.ID, backing.Head, "y")
	xTime := view(t, s, x.ID).ModTime()
	pastTick(xTime)
	appendOK(t, s, "", msg("user", "main"))
	appendOK(t, s, y.ID, msg("user", "y"))
	if got := view(t, s, x.ID).ModTime(); !got.Equal(xTime) {
		t.Errorf("x's ModTime moved from %v to %v with appends to its parent and child", xTime, got)
	}
	if got := view(t, s, y.ID).ModTime(); !got.After(xTime) {
		t.Errorf("y's ModTime %v, want after %v", got, xTime)
	}
}

func viewHealthy(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", mixed...)
	x := fork(t, s, "", 4, "x")
	appendOK(t, s, x.ID, qa("", 2)...)
	for _, id := range []string{"", x.ID} {
		v := view(t, s, id)
		if p := v.Problems(); len(p) != 0 {
			t.Errorf("branch %q: Problems = %+v", id, p)
		}
	}
}

func viewEmpty(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	v := view(t, s, "")
	if v.Len() != 0 || v.Visible() != 0 || v.Events() != 0 || v.Turns() != 0 || v.Inherited() != 0 || v.VisibleBefore(0) != 0 {
		t.Errorf("an empty view: %d messages, %d visible, %d events, %d turns", v.Len(), v.Visible(), v.Events(), v.Turns())
	}
	if got, err := v.Read(0, 0); err != nil || len(got) != 0 {
		t.Errorf("Read(0, 0) = %v, %v", got, err)
	}
	if got, err := v.AfterVisible(0); err != nil || got != 0 {
		t.Errorf("AfterVisible(0) = %d, %v", got, err)
	}
	_, err := v.AfterVisible(1)
	wantErr(t, "AfterVisible(1) of an empty view", err, backing.ErrInvalid)
	_, _, err = v.TurnRange(1)
	wantErr(t, "TurnRange(1) of an empty view", err, backing.ErrNotFound)
	if len(v.Problems()) != 0 {
		t.Errorf("Problems = %+v", v.Problems())
	}
}

// viewBranchRenamed: a view's Branch is the branch it shows, by id.
func viewBranchRenamed(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	x := fork(t, s, "", backing.Head, "x")
	if v := view(t, s, x.ID); v.Branch().ID != x.ID || v.Branch().Name != "x" || v.Branch().Parent != x.Parent {
		t.Errorf("Branch() = %+v, want %+v", v.Branch(), x)
	}
	if err := s.RenameBranch(x.ID, "y"); err != nil {
		t.Fatal(err)
	}
	if v := view(t, s, x.ID); v.Branch().ID != x.ID || v.Branch().Name != "y" {
		t.Errorf("Branch() after rename = %+v", v.Branch())
	}
}
