package backing

import (
	"slices"
	"testing"
)

// TestSubscribersHooks: the engine hears of the first subscriber and the
// last one gone, of a session's first Follow and its last undoing (a
// Close undoes what its subscription followed), and a change inside a
// session from another writer reaches only those that follow it.
func TestSubscribersHooks(t *testing.T) {
	var log []string
	f := &Subscribers{
		Started:    func() { log = append(log, "started") },
		Stopped:    func() { log = append(log, "stopped") },
		Followed:   func(id string) { log = append(log, "follow "+id) },
		Unfollowed: func(id string) { log = append(log, "unfollow "+id) },
	}
	var heardA, heardB []Change
	a := f.Subscribe(func(c Change) { heardA = append(heardA, c) })
	b := f.Subscribe(func(c Change) { heardB = append(heardB, c) })
	a.Follow("s")
	b.Follow("s")
	b.Follow("t")
	b.Unfollow("x") // never followed: nothing
	a.Unfollow("s")
	if got := f.FollowedIDs(); len(got) != 2 {
		t.Errorf("followed %v, want s and t", got)
	}
	f.Deliver(Change{Kind: MetaChanged, Session: "t"})
	f.Deliver(Change{Kind: NamesChanged})
	f.Publish(Change{Kind: MetaChanged, Session: "u"})
	if len(heardA) != 2 || len(heardB) != 3 {
		t.Errorf("a heard %v, b heard %v; want a the names and its own, b all three", heardA, heardB)
	}
	b.Close()
	b.Close()
	a.Close()
	want := []string{"started", "follow s", "follow t", "unfollow s", "unfollow t", "stopped"}
	if len(log) == 6 && log[3] == "unfollow t" { // Close undoes in map order
		log[3], log[4] = log[4], log[3]
	}
	if !slices.Equal(log, want) {
		t.Errorf("hooks %q, want %q", log, want)
	}
	f.Publish(Change{Kind: NamesChanged})
	if len(heardA) != 2 {
		t.Error("a closed subscription was told of a change")
	}
	f.Subscribe(func(Change) {})
	if log[len(log)-1] != "started" {
		t.Error("a subscriber after the last one left did not start the engine again")
	}
}
