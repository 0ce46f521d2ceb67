package filestore

import (
	"fmt"
	"sync"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

func TestBranchOpsRaceAppendsStore(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "s")
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := 1; i <= 200; i++ {
			if err := s.Append("", [][]byte{msg("user", fmt.Sprintf("message %d", i))}); err != nil {
				t.Error(err)
			}
		}
	}()
	go func() {
		defer wg.Done()
		for i := 1; i <= 30; i++ {
			f, g := fmt.Sprintf("f%d", i), fmt.Sprintf("g%d", i)
			b, err := s.Fork("", backing.Head, f)
			if err != nil {
				t.Error(err)
			}
			if err := s.RenameBranch(b.ID, g); err != nil {
				t.Error(err)
			}
			if err := s.DeleteBranch(b.ID); err != nil {
				t.Error(err)
			}
		}
	}()
	wg.Wait()
	if got := contents(t, s, ""); len(got) != 200 {
		t.Errorf("%d messages, want 200", len(got))
	}
}

// Readers listing branches while forks are made never see a branch file
// half written (it was created empty, then filled).
func TestBranchListDuringForks(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "s")
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 200 {
			if _, err := s.Fork("", backing.Head, fmt.Sprintf("f%d", i)); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for {
		select {
		case <-done:
			return
		default:
		}
		s.dropBranchCache()
		if _, err := s.Branches(); err != nil {
			t.Fatalf("listing branches during forks: %v", err)
		}
	}
}
