package storetest

import (
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// testStore covers the store's facts: Location, MaxMessage, Space and
// NamesChanged.
func testStore(t *testing.T, open Opener) {
	cases(t, open, map[string]func(*testing.T, backing.Store){
		"Facts":        storeFacts,
		"NamesChanged": namesChanged,
	})
}

func storeFacts(t *testing.T, st backing.Store) {
	if st.Location() == "" {
		t.Error("Location is empty")
	}
	if st.MaxMessage() <= 0 {
		t.Errorf("MaxMessage = %d, want > 0", st.MaxMessage())
	}
	sp, err := st.Space()
	if err != nil {
		t.Fatalf("Space: %v", err)
	}
	if sp.BlockSize == 0 {
		t.Errorf("Space: BlockSize is 0: %+v", sp)
	}
	if sp.BlocksFree > sp.Blocks || sp.BlocksAvail > sp.BlocksFree {
		t.Errorf("Space: want Blocks >= BlocksFree >= BlocksAvail: %+v", sp)
	}
	if sp.FilesFree > sp.Files {
		t.Errorf("Space: FilesFree > Files: %+v", sp)
	}
	for what, list := range map[string]func() ([]string, error){
		"Names": st.Names, "ArchivedNames": st.ArchivedNames, "TrashedIDs": st.TrashedIDs,
	} {
		if got, err := list(); err != nil || len(got) != 0 {
			t.Errorf("%s of an empty store = %q, %v; want none", what, got, err)
		}
	}
	if got, err := st.List(true); err != nil || len(got) != 0 {
		t.Errorf("List(true) of an empty store = %+v, %v; want none", got, err)
	}
}

// namesChanged: every change that makes a name come or go moves
// NamesChanged forward, whichever listing the name was in.
func namesChanged(t *testing.T, st backing.Store) {
	prev := st.NamesChanged()
	step := func(what string, change func() error) {
		t.Helper()
		pastTick(prev)
		if err := change(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		got := st.NamesChanged()
		if !got.After(prev) {
			t.Errorf("NamesChanged after %s = %v, want after %v", what, got, prev)
		}
		if got.After(time.Now().Add(time.Minute)) {
			t.Errorf("NamesChanged after %s = %v, in the future", what, got)
		}
		prev = got
	}
	var id string
	step("create", func() error {
		s, _, err := st.Create("a", backing.Meta{})
		if err == nil {
			id = s.ID()
		}
		return err
	})
	step("rename", func() error { return st.Rename("a", "b") })
	step("archive", func() error { return st.Archive("b") })
	step("unarchive", func() error { return st.Unarchive("b") })
	step("trash", func() error { return st.Trash("b") })
	step("restore", func() error { _, err := st.Restore(id, ""); return err })
	step("archive again", func() error { return st.Archive("b") })
	// The archived name goes: the contract lists trash among the changes.
	step("trash of an archived session", func() error { return st.Trash("b") })
	step("restore as another name", func() error { _, err := st.Restore(id, "c"); return err })
}
