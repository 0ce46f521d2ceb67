package fsnode

import (
	"bytes"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

func appendLines(t *testing.T, s backing.Session, branchID string, lines ...string) {
	t.Helper()
	var msgs [][]byte
	for _, l := range lines {
		msgs = append(msgs, []byte(l))
	}
	if err := s.AppendID(branchID, msgs); err != nil {
		t.Fatal(err)
	}
}

// sessionS creates session "s" in st and returns it with its default
// branch.
func sessionS(t *testing.T, st backing.Store) (backing.Session, backing.Branch) {
	t.Helper()
	s, _, err := st.Create("s", backing.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	main, err := s.Branch("")
	if err != nil {
		t.Fatal(err)
	}
	return s, main
}

// events.jsonl holds a branch's events, typed and imported, each its
// stored line, in order, ancestry resolved (a fork has its parent's
// before the fork point only), of exact size at a stat, whatever the
// size of the reads, and read-only.
func TestEventsFile(t *testing.T) {
	st := newStore(t)
	s, main := sessionS(t, st)
	big := strings.Repeat("x", 100<<10) // a gap a read does not read through
	appendLines(t, s, main.ID,
		`{"role":"user","content":"q1"}`,
		`{"role":"event","content":"","event":"usage","data":{"input":3}}`,
		`{"role":"event","content":"","event":"event_msg/token_count","source_seq":4}`,
		`{"role":"assistant","content":"`+big+`"}`,
		`{"role":"event","content":"","event":"turn_end","data":{}}`,
	)
	x, err := s.Fork(main.ID, backing.Head, "x")
	if err != nil {
		t.Fatal(err)
	}
	appendLines(t, s, main.ID, `{"role":"user","content":"q2"}`, `{"role":"event","content":"","event":"run_completed","data":{}}`)
	appendLines(t, s, x.ID, `{"role":"event","content":"","event":"run_errored","data":{"error":"boom"}}`)

	want := func(id string) []byte {
		t.Helper()
		v, err := s.ViewID(id)
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := v.Read(0, v.Len())
		if err != nil {
			t.Fatal(err)
		}
		var b []byte
		for _, m := range msgs {
			if k, _, _ := backing.Classify(m.Raw); k.Event {
				b = append(append(b, m.Raw...), '\n')
			}
		}
		return b
	}
	k := newKernel(t, st, Options{})
	for _, c := range []struct {
		path, branch string
		events       []string
	}{
		{"s/events.jsonl", main.ID, []string{"usage", "token_count", "turn_end", "run_completed"}},
		{"s/branches/main/events.jsonl", main.ID, []string{"usage", "token_count", "turn_end", "run_completed"}},
		{"s/branches/x/events.jsonl", x.ID, []string{"usage", "token_count", "turn_end", "run_errored"}},
	} {
		w := want(c.branch)
		if lines := bytes.Count(w, []byte("\n")); lines != len(c.events) {
			t.Fatalf("%s: the branch has %d events, want %d", c.path, lines, len(c.events))
		}
		a, errno := k.stat(c.path)
		if errno != 0 || a.Size != uint64(len(w)) || a.Mode&0o222 != 0 {
			t.Errorf("stat %s: size %d mode %o (%v), want size %d, read-only", c.path, a.Size, a.Mode, errno, len(w))
		}
		for _, size := range []int{7, 4096, 1 << 20} {
			if got := k.catFile(c.path, size); !bytes.Equal(got, w) {
				t.Errorf("%s in reads of %d: %q\nwant %q", c.path, size, got, w)
			}
		}
		for i, kind := range c.events {
			if line := strings.Split(string(w), "\n")[i]; !strings.Contains(line, kind) {
				t.Errorf("%s line %d = %s, want %s", c.path, i+1, line, kind)
			}
		}
		if _, errno := k.open(c.path, syscall.O_WRONLY); errno != syscall.EACCES {
			t.Errorf("open %s for writing: %v, want EACCES", c.path, errno)
		}
	}
	if !slices.Contains(k.ls("s"), "events.jsonl") || !slices.Contains(k.ls("s/branches/x"), "events.jsonl") {
		t.Error("events.jsonl is not listed in the session and branch folders")
	}
	// It grows as events are appended, its stat exact at once.
	appendLines(t, s, main.ID, `{"role":"event","content":"","event":"turn_end","data":{"interrupted":true}}`)
	if a, _ := k.stat("s/events.jsonl"); a.Size != uint64(len(want(main.ID))) {
		t.Errorf("after an append: size %d, want %d", a.Size, len(want(main.ID)))
	}
	if got := k.catFile("s/events.jsonl", 4096); !bytes.Equal(got, want(main.ID)) {
		t.Errorf("after an append: %q", got)
	}
}
