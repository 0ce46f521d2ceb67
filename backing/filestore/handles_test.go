package filestore

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// withMaxHandles runs the test with the store keeping at most n handles.
func withMaxHandles(t *testing.T, n int) {
	old := maxHandles
	maxHandles = n
	t.Cleanup(func() { maxHandles = old })
}

// TestHandlesBounded: a process that reads many sessions keeps a bounded
// number of handles, the most recently used among them.
func TestHandlesBounded(t *testing.T) {
	withMaxHandles(t, 8)
	st, _ := openLogged(t, t.TempDir(), Options{Sync: SyncNone})
	var ids []string
	for i := range 30 {
		ids = append(ids, newSession(t, st, fmt.Sprintf("s%02d", i)).ID())
	}
	for _, id := range ids {
		if _, err := st.SessionByID(id); err != nil {
			t.Fatal(err)
		}
	}
	st.mu.Lock()
	n, last := len(st.sessions), st.sessions[ids[len(ids)-1]]
	st.mu.Unlock()
	if n > 8 {
		t.Errorf("%d handles kept, want at most 8", n)
	}
	if last == nil {
		t.Error("the handle used last was dropped")
	}
}

// TestBusyHandleKept: a handle with an append queued is never dropped,
// so the appends of a session queue on one handle.
func TestBusyHandleKept(t *testing.T) {
	withMaxHandles(t, 4)
	st, _ := openLogged(t, t.TempDir(), Options{Sync: SyncNone})
	busy := newSession(t, st, "busy")
	busy.mu.Lock()
	busy.queue = append(busy.queue, &pending{})
	busy.mu.Unlock()
	for i := range 12 {
		newSession(t, st, fmt.Sprintf("s%02d", i))
	}
	st.mu.Lock()
	kept := st.sessions[busy.ID()] == busy
	st.mu.Unlock()
	busy.mu.Lock()
	busy.queue = nil
	busy.mu.Unlock()
	if !kept {
		t.Error("a handle with an append queued was dropped")
	}
}

// TestDroppedHandleStillWorks: a caller keeps using a handle the store
// dropped while another uses the new one: appends through both land, in
// order, none lost or doubled.
func TestDroppedHandleStillWorks(t *testing.T) {
	withMaxHandles(t, 4)
	st, _ := openLogged(t, t.TempDir(), Options{Sync: SyncNone})
	old := newSession(t, st, "a")
	for i := range 8 { // the least recently used: old is dropped
		newSession(t, st, fmt.Sprintf("s%02d", i))
	}
	s, err := st.SessionByID(old.ID())
	if err != nil {
		t.Fatal(err)
	}
	if s.(*Session) == old {
		t.Fatal("the handle was not dropped; the test proves nothing")
	}
	const n = 200
	var wg sync.WaitGroup
	for w, h := range []*Session{old, s.(*Session)} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range n {
				if err := h.Append("", [][]byte{msg("user", fmt.Sprintf("w%d-%d", w, i))}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	next := map[string]int{}
	msgs := readBranch(t, reopen(t, st, "a"), "")
	for _, m := range msgs {
		var w, i int
		if _, err := fmt.Sscanf(backing.PromptText(m.Raw), "w%d-%d", &w, &i); err != nil {
			t.Fatalf("message %q: %v", m.Raw, err)
		}
		key := fmt.Sprint(w)
		if i != next[key] {
			t.Fatalf("writer %d: message %d where %d was next", w, i, next[key])
		}
		next[key]++
	}
	if len(msgs) != 2*n {
		t.Errorf("%d messages, want %d", len(msgs), 2*n)
	}
}

// TestDroppedHandleKeepsNoIndex: handles a caller holds (as a mount's
// nodes hold those of the sessions the kernel remembers) keep no log
// index once the store dropped them, and read the same after.
func TestDroppedHandleKeepsNoIndex(t *testing.T) {
	withMaxHandles(t, 4)
	st, _ := openLogged(t, t.TempDir(), Options{Sync: SyncNone})
	var held []*Session
	var want [][]string
	for i := range 12 {
		s := newSession(t, st, fmt.Sprintf("s%02d", i))
		if err := s.Append("", [][]byte{msg("user", fmt.Sprintf("q%d", i)), msg("assistant", fmt.Sprintf("a%d", i))}); err != nil {
			t.Fatal(err)
		}
		held = append(held, s)
		want = append(want, contents(t, s, ""))
	}
	indexed := 0
	for _, s := range held {
		st.mu.Lock()
		kept := st.sessions[s.ID()] == s
		st.mu.Unlock()
		s.mu.Lock()
		n := len(s.logs)
		s.mu.Unlock()
		if !kept && n > 0 {
			t.Errorf("%s: dropped, and holds %d log indexes", s.ID(), n)
		}
		indexed += n
	}
	if indexed > 4 {
		t.Errorf("%d log indexes held by 12 handles, the store keeping 4", indexed)
	}
	for i, s := range held {
		if got := contents(t, s, ""); !slices.Equal(got, want[i]) {
			t.Errorf("session %d reads %q through its dropped handle, want %q", i, got, want[i])
		}
	}
}
