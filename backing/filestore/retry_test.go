package filestore

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// withID is a message with an id of the writer's own.
func withID(id, content string) []byte {
	b, _ := json.Marshal(map[string]string{"id": id, "role": "user", "content": content})
	return b
}

// ids reads a branch and returns each message's id.
func ids(t *testing.T, s *Session, branch string) []string {
	t.Helper()
	msgs := readBranch(t, s, branch)
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = backing.IDOf(m.Raw)
	}
	return out
}

// The same batch appended twice is stored once; within a batch an id that
// comes twice is stored once; a batch of retries and new messages stores
// the new ones. Messages without an id of their own are never taken for
// retries. A second process (a Store of its own) sees the ids too.
func TestRetryStoresOnce(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "s")
	batch := [][]byte{withID("a", "1"), withID("b", "2"), withID("c", "3")}
	for range 2 {
		if err := s.Append("", batch); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Append("", [][]byte{withID("d", "4"), withID("d", "4 again")}); err != nil {
		t.Fatal(err)
	}
	if err := s.Append("", [][]byte{withID("c", "3"), withID("e", "5"), msg("user", "no id"), msg("user", "no id")}); err != nil {
		t.Fatal(err)
	}
	if got := contents(t, s, ""); strings.Join(got, " ") != "1 2 3 4 5 no id no id" {
		t.Fatalf("contents = %q", got)
	}
	st2, _ := Open(st.Root(), Options{})
	s2 := concrete(st2.Session("s"))
	if err := s2.Append("", append(batch, withID("f", "6"))); err != nil {
		t.Fatal(err)
	}
	if err := s.Append("", [][]byte{withID("f", "6")}); err != nil { // this process's index catches up
		t.Fatal(err)
	}
	if got := contents(t, s, ""); strings.Join(got, " ") != "1 2 3 4 5 no id no id 6" {
		t.Fatalf("after a second process: %q", got)
	}
}

// An id the parent branch has before the fork point is in the fork's
// history: a retry of it on the fork is not stored. One the parent got
// after the fork point is not, and is stored.
func TestRetryInParentBeforeForkPoint(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "s")
	if err := s.Append("", [][]byte{withID("before", "b")}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Fork("", backing.Head, "x"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Fork(idOf(t, s, "x"), backing.Head, "xx"); err != nil {
		t.Fatal(err)
	}
	if err := s.Append("", [][]byte{withID("after", "a")}); err != nil {
		t.Fatal(err)
	}
	if err := s.Append("xx", [][]byte{withID("before", "b"), withID("after", "a")}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ids(t, s, "xx"), " "); got != "before after" {
		t.Errorf("xx = %q, want before after", got)
	}
	if got := strings.Join(ids(t, s, ""), " "); got != "before after" {
		t.Errorf("main = %q, want before after", got)
	}
}

// Two ids with one hash (forced here): the set holds the first, and a
// lookup of the other reads the log rather than trusting the hash.
func TestRetryHashCollision(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "s")
	var batch [][]byte
	for i := range 10 {
		batch = append(batch, withID(fmt.Sprintf("m%d", i), fmt.Sprint(i)))
	}
	if err := s.Append("", batch); err != nil {
		t.Fatal(err)
	}
	b, _ := s.Branch("")
	x := s.logIndex(b.ID)
	x.mu.Lock()
	if err := x.buildIDs(); err != nil {
		t.Fatal(err)
	}
	x.ids[hashID("m7")] = 2 // as if m2 and m7 shared a hash, m2 first
	x.ids[hashID("new")] = 3
	got7, err7 := x.hasID("m7", -1)
	gotNew, errNew := x.hasID("new", -1)
	x.mu.Unlock()
	if !got7 || gotNew || err7 != nil || errNew != nil {
		t.Errorf("hasID(m7) = %v, %v; hasID(new) = %v, %v", got7, err7, gotNew, errNew)
	}
}
