package backing

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// marksOf are the marks of messages of kinds, by the turn rule.
func marksOf(kinds []Kind) Marks {
	var m Marks
	for i, k := range kinds {
		m.Push(i, k, func(j int) Kind { return kinds[j] })
	}
	return m
}

// TestSegments: a view of a parent's first 4 messages and a branch's own
// 4, by hand: counts, turns and positions across the segment boundary.
func TestSegments(t *testing.T) {
	p, c, a, e := Kind{Prompt: true}, Kind{Context: true}, Kind{}, Kind{Event: true}
	parent := []Kind{a, p, a, c, p, a} // the view keeps 4: context cut from its prompt
	own := []Kind{e, c, p, a}          // the context opens the prompt's turn
	s := Segments{Name: "x"}
	s.Add(4, marksOf(parent))
	s.Add(4, marksOf(own))
	if s.Len() != 8 || s.Inherited() != 4 || s.Events() != 1 || s.Visible() != 7 {
		t.Fatalf("Len %d Inherited %d Events %d Visible %d", s.Len(), s.Inherited(), s.Events(), s.Visible())
	}
	if s.Turns() != 2 {
		t.Fatalf("Turns %d, want 2", s.Turns())
	}
	var got []string
	for k := 1; k <= s.Turns(); k++ {
		from, to, err := s.TurnRange(k)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("[%d,%d)", from, to))
	}
	if want := []string{"[0,5)", "[5,8)"}; !slices.Equal(got, want) {
		t.Errorf("turns %q, want %q", got, want)
	}
	if _, _, err := s.TurnRange(3); err == nil || err.Error() != `turn 3: not found (branch "x" has 2 turns)` {
		t.Errorf("TurnRange(3): %v", err)
	}
	var turns []int
	for i := range s.Len() {
		turns = append(turns, s.TurnOf(i))
	}
	if want := []int{1, 1, 1, 1, 1, 2, 2, 2}; !slices.Equal(turns, want) {
		t.Errorf("TurnOf %v, want %v", turns, want)
	}
	if s.VisibleBefore(6) != 5 {
		t.Errorf("VisibleBefore(6) = %d, want 5", s.VisibleBefore(6))
	}
	if at, err := s.AfterVisible(5); err != nil || at != 6 {
		t.Errorf("AfterVisible(5) = %d, %v; want 6", at, err)
	}
	if seg, local, ok := s.Locate(5); !ok || seg != 1 || local != 1 {
		t.Errorf("Locate(5) = %d, %d, %v", seg, local, ok)
	}
	if rs := s.Ranges(3, 6); !slices.Equal(rs, []Range{{0, 0, 3, 4}, {1, 4, 0, 2}}) {
		t.Errorf("Ranges(3, 6) = %v", rs)
	}
	msgs := s.Messages(3, make([][]byte, 5))
	var starts []string
	for _, m := range msgs {
		starts = append(starts, fmt.Sprintf("%d:t%d:%v", m.Index, m.Turn, m.TurnStart))
	}
	if want := []string{"3:t1:false", "4:t1:false", "5:t2:true", "6:t2:false", "7:t2:false"}; !slices.Equal(starts, want) {
		t.Errorf("Messages %q, want %q", starts, want)
	}
}

// TestTurnRangeRandom holds TurnRange, which finds a turn's start in the
// segment holding its flag, to the turn rule's definition (turn k opens
// at the first message with k turn starts at or before it: starts), and
// Messages' Event to the kinds, over random views of random branches.
func TestTurnRangeRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	kinds := []Kind{{Prompt: true}, {Context: true}, {}, {Event: true}, {Event: true, Typed: true}}
	for range 500 {
		s := Segments{Name: "x"}
		var all []Kind
		for range 1 + r.IntN(4) {
			branch := make([]Kind, r.IntN(12))
			for i := range branch {
				branch[i] = kinds[r.IntN(len(kinds))]
			}
			keep := 0
			if len(branch) > 0 {
				keep = r.IntN(len(branch) + 1)
			}
			s.Add(keep, marksOf(branch))
			all = append(all, branch[:keep]...)
		}
		startOf := func(k int) int {
			if k == 1 {
				return 0
			}
			return sort.Search(s.Len(), func(i int) bool { return s.starts(i+1) >= k })
		}
		for k := 1; k <= s.Turns(); k++ {
			from, to, err := s.TurnRange(k)
			if err != nil {
				t.Fatal(err)
			}
			wantTo := s.Len()
			if k < s.Turns() {
				wantTo = startOf(k + 1)
			}
			if from != startOf(k) || to != wantTo {
				t.Fatalf("kinds %v: TurnRange(%d) = [%d,%d), want [%d,%d)", all, k, from, to, startOf(k), wantTo)
			}
		}
		for _, m := range s.Messages(0, make([][]byte, s.Len())) {
			if m.Event != all[m.Index].Event {
				t.Fatalf("kinds %v: message %d Event %v", all, m.Index, m.Event)
			}
		}
	}
}
