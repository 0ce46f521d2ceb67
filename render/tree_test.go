package render

import "testing"

func TestTree(t *testing.T) {
	got := string(Tree([]TreeNode{
		{ID: "m", Name: "main", Messages: 8},
		{ID: "a", Parent: "m", Name: "t1", Messages: 4, ForkedAt: 3},
		{ID: "b", Parent: "a", Name: "t1b", Messages: 1, ForkedAt: 0},
		{ID: "c", Parent: "a", Name: "t1c", Messages: 6, ForkedAt: 4},
		{ID: "d", Parent: "c", Name: "deep", Err: "damaged"},
		{ID: "x", Parent: "m", Name: "x", Messages: 9, ForkedAt: 8},
		{ID: "o", Parent: "gone", Name: "orphan", Messages: 2, ForkedAt: 1},
		{ID: "p", Parent: "q", Name: "loop1", Messages: 1, ForkedAt: 1},
		{ID: "q", Parent: "p", Name: "loop2", Messages: 1, ForkedAt: 1},
	}))
	want := `main: 8 messages
├─ t1: 4 messages, forked at 3
│  ├─ t1b: 1 message, forked at 0
│  └─ t1c: 6 messages, forked at 4
│     └─ deep: unreadable (damaged), forked at 0
└─ x: 9 messages, forked at 8
orphan: 2 messages, forked at 1
loop1: 1 message, forked at 1
└─ loop2: 1 message, forked at 1
`
	if got != want {
		t.Errorf("Tree =\n%s\nwant\n%s", got, want)
	}
	if got := Tree(nil); len(got) != 0 {
		t.Errorf("Tree(nil) = %q", got)
	}
}
