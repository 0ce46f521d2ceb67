package storetest

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/sessfs/sessfs/backing"
)

// testReceiver covers the optional backing.Receiver (sessfs copy); an
// engine without it skips these.
func testReceiver(t *testing.T, open Opener) {
	cases(t, open, map[string]func(*testing.T, backing.Store){
		"KeepsIDAndDates": receiveKeeps,
		"Refuses":         receiveRefuses,
	})
}

func receiver(t *testing.T, st backing.Store) backing.Receiver {
	t.Helper()
	r, ok := st.(backing.Receiver)
	if !ok {
		t.Skip("the engine has no Receiver")
	}
	return r
}

// sent is the meta of a session as another store has it.
func sent(name string) backing.Meta {
	created := time.Date(2025, 3, 1, 9, 30, 0, 0, time.UTC)
	return backing.Meta{
		ID: uuid.Must(uuid.NewV7()).String(), Name: name, Title: "From elsewhere",
		Created: created, Updated: created.Add(time.Hour), Project: "x", Model: "m1",
		Tags: []string{"t"}, State: backing.StateArchived, Parent: uuid.Must(uuid.NewV7()).String(),
		Extra: map[string]json.RawMessage{"source": json.RawMessage(`{"format":"claude-code"}`)},
	}
}

// receiveKeeps: a received session has the id, name, dates and fields it
// was sent with, is active, has an empty default branch, and is found by
// its id and its name.
func receiveKeeps(t *testing.T, st backing.Store) {
	in := sent("copied")
	s, m, err := receiver(t, st).Receive(in)
	if err != nil {
		t.Fatal(err)
	}
	if s.ID() != in.ID || m.ID != in.ID || m.Name != "copied" || m.State != backing.StateActive {
		t.Errorf("Receive = %s, %+v; want id %s, name copied, active", s.ID(), m, in.ID)
	}
	got, err := s.Meta()
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != in.ID || !got.Created.Equal(in.Created) || !got.Updated.Equal(in.Updated) ||
		got.Title != in.Title || got.Parent != in.Parent || got.State != backing.StateActive ||
		!jsonEqual(got.Extra["source"], in.Extra["source"]) {
		t.Errorf("Meta = %+v, want what was sent, active: %+v", got, in)
	}
	if byID, err := st.SessionByID(in.ID); err != nil || byID.ID() != in.ID {
		t.Errorf("SessionByID(%s) = %v", in.ID, err)
	}
	if byName, err := st.Session("copied"); err != nil || byName.ID() != in.ID {
		t.Errorf("Session(copied) = %v", err)
	}
	if v := view(t, s, ""); v.Len() != 0 || v.Branch().Name != backing.DefaultBranchName {
		t.Errorf("the default branch has %d messages, name %q", v.Len(), v.Branch().Name)
	}
	appendOK(t, s, "", msg("user", "hello"))
}

// receiveRefuses: an id the store has, in the trash too, or a name it has,
// is ErrExist, and an id that is not a UUID is ErrInvalid; none of them
// leaves anything behind.
func receiveRefuses(t *testing.T, st backing.Store) {
	r := receiver(t, st)
	first := sent("first")
	if _, _, err := r.Receive(first); err != nil {
		t.Fatal(err)
	}
	again := first
	again.Name = "other-name"
	if _, _, err := r.Receive(again); !errors.Is(err, backing.ErrExist) {
		t.Errorf("Receive of an id the store has = %v, want ErrExist", err)
	}
	taken := sent("first")
	if _, _, err := r.Receive(taken); !errors.Is(err, backing.ErrExist) {
		t.Errorf("Receive under a name in use = %v, want ErrExist", err)
	}
	if err := st.Trash("first"); err != nil {
		t.Fatal(err)
	}
	again.Name = "first"
	if _, _, err := r.Receive(again); !errors.Is(err, backing.ErrExist) {
		t.Errorf("Receive of an id in the trash = %v, want ErrExist", err)
	}
	bad := sent("bad")
	bad.ID = "not-an-id"
	if _, _, err := r.Receive(bad); !errors.Is(err, backing.ErrInvalid) {
		t.Errorf("Receive of id %q = %v, want ErrInvalid", bad.ID, err)
	}
	if names, err := st.Names(); err != nil || len(names) != 0 {
		t.Errorf("Names = %q, %v; want none (first is in the trash, the rest refused)", names, err)
	}
	// The name is free again once refused: a taken one was not half-made.
	if _, _, err := r.Receive(taken); err != nil {
		t.Errorf("Receive of a fresh id under a free name: %v", err)
	}
}
