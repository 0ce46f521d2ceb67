package storetest

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// testConcurrency covers concurrent appenders: none lost, none stored
// twice, no append interleaved with another, each writer's order kept.
func testConcurrency(t *testing.T, open Opener) {
	cases(t, open, map[string]func(*testing.T, backing.Store){
		"OneBranch":     concurrentOneBranch,
		"Batches":       concurrentBatches,
		"ManyBranches":  concurrentBranches,
		"Retries":       concurrentRetries,
		"WhileReading":  concurrentReaders,
		"ManySessions":  concurrentSessions,
		"ForksAndViews": concurrentForks,
	})
}

const writers, perWriter = 8, 50

// wmsg is message seq of writer w.
func wmsg(w, seq int) []byte {
	b, _ := json.Marshal(map[string]any{"role": "user", "content": fmt.Sprintf("w%d-%d", w, seq), "w": w, "seq": seq})
	return b
}

type wseq struct{ W, Seq int }

func parseW(t *testing.T, raw []byte) wseq {
	t.Helper()
	var x wseq
	var m struct {
		W   *int `json:"w"`
		Seq *int `json:"seq"`
	}
	if err := json.Unmarshal(raw, &m); err != nil || m.W == nil || m.Seq == nil {
		t.Fatalf("not a whole message of a writer: %v: %s", err, raw)
	}
	x.W, x.Seq = *m.W, *m.Seq
	return x
}

// run starts n goroutines at once and waits for them.
func run(t *testing.T, n int, fn func(w int) error) {
	t.Helper()
	start := make(chan struct{})
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for w := range n {
		wg.Go(func() {
			<-start
			if err := fn(w); err != nil {
				errs <- fmt.Errorf("writer %d: %w", w, err)
			}
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}
}

// checkWriters checks that msgs hold writers×perWriter messages, each
// once, each writer's in the order it wrote them, and each batch of size
// batch in one piece.
func checkWriters(t *testing.T, msgs []backing.Message, writers, perWriter, batch int) {
	t.Helper()
	if len(msgs) != writers*perWriter {
		t.Errorf("%d messages, want %d", len(msgs), writers*perWriter)
	}
	next := make([]int, writers)
	for i := 0; i < len(msgs); i++ {
		m := parseW(t, msgs[i].Raw)
		if m.W < 0 || m.W >= writers || m.Seq != next[m.W] {
			t.Fatalf("message %d is writer %d's #%d, want #%d: lost, repeated or out of order", i, m.W, m.Seq, next[m.W])
		}
		next[m.W]++
		if m.Seq%batch == 0 {
			for k := 1; k < batch && i+k < len(msgs); k++ {
				if n := parseW(t, msgs[i+k].Raw); n.W != m.W || n.Seq != m.Seq+k {
					t.Fatalf("message %d: writer %d's batch from #%d is interleaved with writer %d's #%d", i+k, m.W, m.Seq, n.W, n.Seq)
				}
			}
		}
	}
}

func concurrentOneBranch(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	run(t, writers, func(w int) error {
		for seq := range perWriter {
			if err := s.AppendID("", [][]byte{wmsg(w, seq)}); err != nil {
				return err
			}
		}
		return nil
	})
	checkWriters(t, readAll(t, view(t, s, "")), writers, perWriter, 1)
}

func concurrentBatches(t *testing.T, st backing.Store) {
	const batch = 5
	s := newSession(t, st, "s")
	run(t, writers, func(w int) error {
		for seq := 0; seq < perWriter; seq += batch {
			var b [][]byte
			for k := range batch {
				b = append(b, wmsg(w, seq+k))
			}
			if err := s.AppendID("", b); err != nil {
				return err
			}
		}
		return nil
	})
	checkWriters(t, readAll(t, view(t, s, "")), writers, perWriter, batch)
}

// concurrentBranches: writers on different branches of one session.
func concurrentBranches(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	ids := make([]string, writers)
	for w := range writers {
		ids[w] = fork(t, s, "", backing.Head, fmt.Sprintf("b%d", w)).ID
	}
	run(t, writers, func(w int) error {
		for seq := range perWriter {
			// Two appenders a branch: w and the one after it.
			if err := s.AppendID(ids[(w+seq)%writers], [][]byte{wmsg(w, seq)}); err != nil {
				return err
			}
		}
		return nil
	})
	total := 0
	for _, id := range ids {
		msgs := readAll(t, view(t, s, id))
		total += len(msgs)
		last := map[int]int{}
		for _, m := range msgs {
			x := parseW(t, m.Raw)
			if prev, ok := last[x.W]; ok && x.Seq <= prev {
				t.Errorf("branch %s: writer %d's #%d after #%d", id, x.W, x.Seq, prev)
			}
			last[x.W] = x.Seq
		}
	}
	if total != writers*perWriter {
		t.Errorf("%d messages in all, want %d", total, writers*perWriter)
	}
	if v := view(t, s, ""); v.Len() != 0 {
		t.Errorf("main has %d messages, want none", v.Len())
	}
}

// concurrentRetries: writers sending the same messages, ids given, store
// each once.
func concurrentRetries(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	run(t, writers, func(w int) error {
		for seq := range perWriter {
			if err := s.AppendID("", [][]byte{withID("user", fmt.Sprint(seq), fmt.Sprintf("id-%d", seq))}); err != nil {
				return err
			}
		}
		return nil
	})
	got := contents(t, s, "")
	if len(got) != perWriter {
		t.Fatalf("%d messages, want %d: each id once", len(got), perWriter)
	}
	for i, c := range got {
		if c != fmt.Sprint(i) {
			t.Errorf("message %d = %q, want %d", i, c, i)
		}
	}
}

// concurrentReaders: a reader during appends only ever sees whole
// messages, never fewer than before.
func concurrentReaders(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	done := make(chan struct{})
	readErr := make(chan error, 1)
	go func() {
		defer close(readErr)
		seen := 0
		for {
			select {
			case <-done:
				return
			default:
			}
			v, err := s.ViewID("")
			if err != nil {
				readErr <- err
				return
			}
			if v.Len() < seen {
				readErr <- fmt.Errorf("a view has %d messages after one had %d", v.Len(), seen)
				return
			}
			seen = v.Len()
			msgs, err := v.Read(0, v.Len())
			if err != nil {
				readErr <- err
				return
			}
			for _, m := range msgs {
				if err := backing.ValidateMessage(m.Raw); err != nil {
					readErr <- fmt.Errorf("read a broken message: %v: %s", err, m.Raw)
					return
				}
			}
		}
	}()
	run(t, writers/2, func(w int) error {
		for seq := range perWriter {
			if err := s.AppendID("", [][]byte{wmsg(w, seq)}); err != nil {
				return err
			}
		}
		return nil
	})
	close(done)
	if err := <-readErr; err != nil {
		t.Error(err)
	}
	checkWriters(t, readAll(t, view(t, s, "")), writers/2, perWriter, 1)
}

// concurrentSessions: writers on sessions of their own, created at once.
func concurrentSessions(t *testing.T, st backing.Store) {
	run(t, writers, func(w int) error {
		s, _, err := st.Create(fmt.Sprintf("s%d", w), backing.Meta{})
		if err != nil {
			return err
		}
		for seq := range perWriter / 5 {
			if err := s.AppendID("", [][]byte{wmsg(w, seq)}); err != nil {
				return err
			}
		}
		return nil
	})
	names, err := st.Names()
	if err != nil || len(names) != writers {
		t.Fatalf("Names = %q, %v", names, err)
	}
	for w := range writers {
		s, err := st.Session(fmt.Sprintf("s%d", w))
		if err != nil {
			t.Fatal(err)
		}
		msgs := readAll(t, view(t, s, ""))
		if len(msgs) != perWriter/5 {
			t.Errorf("s%d has %d messages, want %d", w, len(msgs), perWriter/5)
		}
		for i, m := range msgs {
			if x := parseW(t, m.Raw); x.W != w || x.Seq != i {
				t.Errorf("s%d message %d is writer %d's #%d", w, i, x.W, x.Seq)
			}
		}
	}
}

// concurrentForks: forks at the head while appends go on each keep a
// prefix of the parent as it was.
func concurrentForks(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	forks := make(chan backing.Branch, perWriter)
	run(t, 2, func(w int) error {
		for seq := range perWriter {
			if w == 0 {
				if err := s.AppendID("", [][]byte{wmsg(0, seq)}); err != nil {
					return err
				}
				continue
			}
			b, err := s.Fork("", backing.Head, fmt.Sprintf("f%d", seq))
			if err != nil {
				return err
			}
			forks <- b
		}
		return nil
	})
	close(forks)
	main := contents(t, s, "")
	for b := range forks {
		got := contents(t, s, b.ID)
		v := view(t, s, b.ID)
		if len(got) > len(main) || v.Inherited() != len(got) {
			t.Errorf("fork %s: %d messages, %d inherited, main has %d", b.Name, len(got), v.Inherited(), len(main))
			continue
		}
		for i := range got {
			if got[i] != main[i] {
				t.Errorf("fork %s message %d = %q, main's is %q", b.Name, i, got[i], main[i])
				break
			}
		}
	}
}
