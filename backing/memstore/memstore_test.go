package memstore_test

import (
	"errors"
	"strings"
	"syscall"
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/memstore"
)

func msg(t *testing.T, content string) []byte {
	t.Helper()
	b, err := backing.TextMessage("user", content)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRemove: a removed session is gone by name and by id, its name is
// free, its handle fails, and the room its messages took is back.
func TestRemove(t *testing.T) {
	st := memstore.New(memstore.Options{})
	empty, _ := st.Space()
	s, _, err := st.Create("x", backing.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AppendID("", [][]byte{msg(t, strings.Repeat("x", 10000))}); err != nil {
		t.Fatal(err)
	}
	if sp, _ := st.Space(); sp.BlocksFree >= empty.BlocksFree {
		t.Errorf("free blocks %d after an append of 10 kB, %d before", sp.BlocksFree, empty.BlocksFree)
	}
	if err := st.Remove(s.ID()); err != nil {
		t.Fatal(err)
	}
	if sp, _ := st.Space(); sp.BlocksFree != empty.BlocksFree {
		t.Errorf("free blocks %d after Remove, want %d", sp.BlocksFree, empty.BlocksFree)
	}
	if _, err := st.SessionByID(s.ID()); !errors.Is(err, backing.ErrNotFound) {
		t.Errorf("SessionByID after Remove: %v", err)
	}
	if _, err := s.ViewID(""); !errors.Is(err, backing.ErrNotFound) {
		t.Errorf("a handle after Remove: %v", err)
	}
	if err := st.Remove(s.ID()); !errors.Is(err, backing.ErrNotFound) {
		t.Errorf("Remove twice: %v", err)
	}
	if _, _, err := st.Create("x", backing.Meta{}); err != nil {
		t.Errorf("the name after Remove: %v", err)
	}
}

// TestMaxBytes: an append past the bound fails with ENOSPC and stores
// nothing; one that fits still goes in.
func TestMaxBytes(t *testing.T) {
	st := memstore.New(memstore.Options{MaxBytes: 1000})
	s, _, err := st.Create("x", backing.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	big := msg(t, strings.Repeat("x", 600))
	if err := s.AppendID("", [][]byte{big}); err != nil {
		t.Fatal(err)
	}
	err = s.AppendID("", [][]byte{msg(t, "small"), big})
	if !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("an append past MaxBytes: %v, want ENOSPC", err)
	}
	v, _ := s.ViewID("")
	if v.Len() != 1 {
		t.Errorf("%d messages after a refused append, want 1", v.Len())
	}
	if err := s.AppendID("", [][]byte{msg(t, "small")}); err != nil {
		t.Errorf("an append that fits: %v", err)
	}
}
