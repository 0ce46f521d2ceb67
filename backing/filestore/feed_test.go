package filestore

import (
	"sync"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// The change feed's contract is checked by storetest (the Feed area of
// TestConformance). What is the file engine's own: the title its first
// prompt gives a session (autoTitle) is a meta change, told with the
// append that made it.
func TestChangeFeedTellsAutoTitle(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "s")
	var mu sync.Mutex
	var got []backing.Change
	sub := st.Subscribe(func(c backing.Change) {
		mu.Lock()
		got = append(got, c)
		mu.Unlock()
	})
	defer sub.Close()
	if err := s.AppendID("", [][]byte{msg("system", "be brief"), msg("user", "q")}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, c := range got {
		if c.Kind == backing.MetaChanged && c.Session == s.ID() {
			return
		}
	}
	t.Errorf("no meta change for the title before AppendID returned: %+v", got)
}
