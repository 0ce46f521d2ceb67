package pgstore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/pgstore/pgtest"
)

// TestFsckRepairs: counts and copies made wrong by hand are found and
// repaired from what they count; a gap in a branch's messages is found
// and left for a person.
func TestFsckRepairs(t *testing.T) {
	st := open(t, pgtest.URL(t))
	a, _, _ := st.Create("a", backing.Meta{})
	b, _, _ := st.Create("b", backing.Meta{})
	msgs := [][]byte{[]byte(`{"role":"user","content":"q"}`), []byte(`{"role":"event","content":""}`), []byte(`{"role":"assistant","content":"r"}`)}
	for _, s := range []backing.Session{a, b} {
		if err := s.AppendID("", msgs); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	for _, sql := range []string{
		`UPDATE branches SET events = 7, bytes = 1 WHERE session_id = '` + a.ID() + `'`,
		`UPDATE branches SET trashed = true WHERE session_id = '` + a.ID() + `'`,
		`UPDATE messages SET raw_len = 3 WHERE session_id = '` + a.ID() + `' AND seq = 0`,
		`INSERT INTO names VALUES ('ghost', gen_random_uuid(), false)`,
		`DELETE FROM messages WHERE session_id = '` + b.ID() + `' AND seq = 1`,
	} {
		if _, err := st.Pool().Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := st.Fsck(false)
	if err != nil {
		t.Fatal(err)
	}
	var fixable, damage int
	for _, p := range rep.Problems {
		t.Logf("found: %s (fixable %v)", p.What, p.Fixable)
		if p.Fixable {
			fixable++
		} else {
			damage++
		}
	}
	if rep.Sessions != 2 || fixable != 4 || damage != 1 {
		t.Fatalf("Fsck found %d sessions, %d fixable problems and %d others; want 2, 4, 1", rep.Sessions, fixable, damage)
	}
	if rep, err = st.Fsck(true); err != nil {
		t.Fatal(err)
	}
	if rep.Remaining() != 1 {
		t.Errorf("after a repair %d problems remain, want the gap alone: %+v", rep.Remaining(), rep.Problems)
	}
	rep, _ = st.Fsck(false)
	if len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].What, "missing") {
		t.Errorf("after the repair, Fsck finds %+v; want the gap alone", rep.Problems)
	}
	// The repaired session takes appends again, and reads its lengths.
	if err := a.AppendID("", msgs[:1]); err != nil {
		t.Errorf("append after the repair: %v", err)
	}
	v, err := a.ViewID("")
	if err != nil {
		t.Fatal(err)
	}
	if v.Len() != 4 || v.Events() != 1 {
		t.Errorf("after the repair: %d messages, %d events; want 4, 1", v.Len(), v.Events())
	}
}
