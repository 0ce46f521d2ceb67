package pgstore

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/pgstore/pgtest"
)

// TestGroupCommit: appends to one branch made at once by this process
// share statements, and each is still all or none, in its writer's order,
// stored once. The statements are counted by the changes they record, one
// each.
func TestGroupCommit(t *testing.T) {
	const writers, each = 8, 60
	st, err := Open(pgtest.URL(t), Options{Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, _, err := st.Create("s", backing.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				// Two messages an append, the second with an id of the
				// writer's on every third: both statements are grouped.
				a := fmt.Sprintf(`{"role":"user","content":"w%d m%d a"}`, w, i)
				b := fmt.Sprintf(`{"role":"assistant","content":"w%d m%d b"}`, w, i)
				if i%3 == 0 {
					b = fmt.Sprintf(`{"id":"w%d-%d","role":"assistant","content":"w%d m%d b"}`, w, i, w, i)
				}
				if err := s.AppendID("", [][]byte{[]byte(a), []byte(b)}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	v, err := s.ViewID("")
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := v.Read(0, v.Len())
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2*writers*each {
		t.Fatalf("%d messages stored of %d", len(msgs), 2*writers*each)
	}
	next := make([]int, writers)
	for k := 0; k < len(msgs); k += 2 {
		var a, b struct{ Content string }
		if err := json.Unmarshal(msgs[k].Raw, &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(msgs[k+1].Raw, &b); err != nil {
			t.Fatal(err)
		}
		var w, i int
		if _, err := fmt.Sscanf(a.Content, "w%d m%d a", &w, &i); err != nil {
			t.Fatalf("message %d: %q: %v", k, a.Content, err)
		}
		if i != next[w] || b.Content != fmt.Sprintf("w%d m%d b", w, i) {
			t.Fatalf("messages %d, %d: %q, %q; want writer %d's append %d whole", k, k+1, a.Content, b.Content, w, next[w])
		}
		next[w]++
	}
	var statements int
	if err := st.pool.QueryRow(context.Background(), `SELECT count(*) FROM changes
		WHERE session_id = $1 AND kind = $2`, s.ID(), int16(backing.Appended)).Scan(&statements); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d appends in %d statements", writers*each, statements)
	if statements >= writers*each {
		t.Errorf("%d appends made at once took %d statements: none shared", writers*each, statements)
	}
}
