package fsnode

import (
	"slices"
	"syscall"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// TestSearchDir: search/ lists nothing; a query's folder lists its hits
// best first, one link a turn, each pointing at its turn folder, which the
// link reaches; an append shows in the next listing; a name that is no
// query is refused.
func TestSearchDir(t *testing.T) {
	st := newStore(t)
	k := newKernel(t, st, Options{})
	a, _, err := st.Create("a", backing.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.AppendID("", [][]byte{
		[]byte(`{"role":"user","content":"tell me about group commit"}`),
		[]byte(`{"role":"assistant","content":"group commit batches fsyncs; group commit is cheap"}`),
		[]byte(`{"role":"user","content":"and now something else"}`),
	}); err != nil {
		t.Fatal(err)
	}
	x, err := a.Fork("", backing.Head, "x")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.AppendID(x.ID, [][]byte{[]byte(`{"role":"user","content":"group commit in a fork"}`)}); err != nil {
		t.Fatal(err)
	}
	if names, errno := k.readdir("search"); errno != 0 || len(names) != 0 {
		t.Fatalf("ls search = %q, %v; want nothing", names, errno)
	}
	names, errno := k.readdir("search/group commit")
	if errno != 0 || !slices.Equal(names, []string{"01 a · turn 1"}) {
		t.Fatalf("ls 'search/group commit' = %q, %v; want one link for turn 1", names, errno)
	}
	if target, errno := k.readlink("search/group commit/01 a · turn 1"); errno != 0 || target != "../../a/turns/1" {
		t.Errorf("readlink = %q, %v", target, errno)
	}
	if err := a.AppendID("", [][]byte{[]byte(`{"role":"user","content":"one more group commit question"}`)}); err != nil {
		t.Fatal(err)
	}
	names, _ = k.readdir("search/group commit")
	if len(names) != 2 || !slices.Contains(names, "01 a · turn 3") && !slices.Contains(names, "02 a · turn 3") {
		t.Errorf("after an append: %q, want turns 1 and 3", names)
	}
	if _, errno := k.lookup("search/NOT x"); errno != syscall.EINVAL {
		t.Errorf("lookup of a query with no word: %v, want EINVAL", errno)
	}
	if _, errno := k.lookup("search/.git"); errno != syscall.ENOENT {
		t.Errorf("lookup of .git: %v, want ENOENT", errno)
	}
	if _, errno := k.lookup("search/group commit/99 nothing"); errno != syscall.ENOENT {
		t.Errorf("lookup of a link that is no hit: %v, want ENOENT", errno)
	}
}

// TestHitLinks: links are numbered to the width of their count, name the
// branch when it is not the default one and the title for a session hit,
// and point at HitPath.
func TestHitLinks(t *testing.T) {
	var hits []backing.Hit
	for i := 0; i < 12; i++ {
		hits = append(hits, backing.Hit{Name: "s", Default: true, Message: i, Turn: i + 1})
	}
	hits = append(hits,
		backing.Hit{Name: "s", Default: true, Message: 40, Turn: 1}, // turn 1 again: no link
		backing.Hit{Name: "s", BranchName: "x", Message: 3, Turn: 2},
		backing.Hit{Name: "old", State: backing.StateArchived, Default: true, Message: -1})
	links := hitLinks("q", hits)
	var got []string
	for _, l := range links {
		got = append(got, l.name+" -> "+l.target)
	}
	want := []string{"01 s · turn 1 -> ../../s/turns/1"}
	if got[0] != want[0] || len(got) != 14 || got[12] != "13 s · branch x · turn 2 -> ../../s/branches/x/turns/2" ||
		got[13] != "14 old · title -> ../../archive/old" {
		t.Errorf("links = %q", got)
	}
}
