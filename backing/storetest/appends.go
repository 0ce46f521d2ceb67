package storetest

import (
	"bytes"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// testAppends covers AppendID: all or none, in order, the message rules,
// the size limit and the fields the store adds.
func testAppends(t *testing.T, open Opener) {
	cases(t, open, map[string]func(*testing.T, backing.Store){
		"Order":        appendOrder,
		"AllOrNone":    appendAllOrNone,
		"TooLarge":     appendTooLarge,
		"Fields":       appendFields,
		"Lossless":     appendLossless,
		"NoBranch":     appendNoBranch,
		"DefaultByID":  appendDefault,
		"Empty":        appendEmpty,
		"OtherBranch":  appendOtherBranch,
		"OtherSession": appendOtherSession,
	})
}

func appendOrder(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", qa("", 3)...)
	appendOK(t, s, "", msg("user", "q4"))
	appendOK(t, s, "", msg("assistant", "a4"), msg("user", "q5"))
	want := []string{"q1", "a1", "q2", "a2", "q3", "a3", "q4", "a4", "q5"}
	if got := contents(t, s, ""); !slices.Equal(got, want) {
		t.Errorf("messages = %q, want %q", got, want)
	}
}

// appendAllOrNone: a batch with one message refused stores nothing, and
// says which message it was.
func appendAllOrNone(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	appendOK(t, s, "", msg("user", "before"))
	bad := map[string]string{
		"not JSON":           `hello`,
		"an array":           `[1]`,
		"no role":            `{"content":"x"}`,
		"Role for role":      `{"Role":"user","content":"x"}`,
		"role not a string":  `{"role":1,"content":"x"}`,
		"empty role":         `{"role":"","content":"x"}`,
		"no content":         `{"role":"user"}`,
		"content a number":   `{"role":"user","content":3}`,
		"content null":       `{"role":"user","content":null}`,
		"content an object":  `{"role":"user","content":{}}`,
		"junk after":         `{"role":"user","content":"x"} x`,
		"invalid UTF-8":      "{\"role\":\"user\",\"content\":\"\xff\"}",
		"id not a string":    `{"role":"user","content":"x","id":5}`,
		"ts not a string":    `{"role":"user","content":"x","ts":5}`,
		"context not string": `{"role":"user","content":"x","context":true}`,
		"truncated":          `{"role":"user","content":"x"`,
		"empty":              ``,
	}
	for what, raw := range bad {
		for _, n := range []int{0, 1, 2} {
			batch := [][]byte{msg("user", "ok1"), msg("assistant", "ok2")}
			batch = slices.Insert(batch, n, []byte(raw))
			err := s.AppendID("", batch)
			var me *backing.MessageError
			if !errors.As(err, &me) || me.N != n || !errors.Is(err, backing.ErrInvalid) {
				t.Errorf("%s at %d: err = %v, want a MessageError N=%d wrapping ErrInvalid", what, n, err, n)
			}
		}
	}
	if got := contents(t, s, ""); !slices.Equal(got, []string{"before"}) {
		t.Errorf("refused appends stored messages: %q", got)
	}
	// Keys are exact but values may spread over lines: stored as one.
	appendOK(t, s, "", []byte("{\n  \"role\": \"user\",\n  \"content\": \"a\\nb\"\n}"))
	if got := contents(t, s, ""); !slices.Equal(got, []string{"before", "a\nb"}) {
		t.Errorf("messages = %q", got)
	}
}

func appendTooLarge(t *testing.T, st backing.Store) {
	max := st.MaxMessage()
	if max > 256<<20 {
		t.Skipf("MaxMessage is %d bytes: too large to build a message over it here", max)
	}
	s := newSession(t, st, "s")
	pad := int(max) - len(`{"role":"user","content":""}`) + 1
	big := append([]byte(`{"role":"user","content":"`), bytes.Repeat([]byte("x"), pad)...)
	big = append(big, `"}`...)
	if int64(len(big)) != max+1 {
		t.Fatalf("test message is %d bytes, want %d", len(big), max+1)
	}
	err := s.AppendID("", [][]byte{msg("user", "small"), big})
	var me *backing.MessageError
	if !errors.As(err, &me) || me.N != 1 || !errors.Is(err, backing.ErrTooLarge) {
		t.Errorf("a message of MaxMessage+1 bytes: err = %v, want a MessageError N=1 wrapping ErrTooLarge", err)
	}
	if v := view(t, s, ""); v.Len() != 0 {
		t.Errorf("a refused append stored %d messages", v.Len())
	}
	appendOK(t, s, "", msg("user", "small"))
}

// appendFields: "id" and "ts" are added when absent and kept when given;
// every other field is kept.
func appendFields(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	before := time.Now().Add(-time.Minute)
	given := []byte(`{"role":"user","content":"given","id":"my-id","ts":"2020-01-01T00:00:00Z"}`)
	appendOK(t, s, "",
		[]byte(`{"role":"user","content":"plain","extra":{"keep":[1,2,3]},"n":1.50}`),
		given,
		msg("assistant", "another"),
	)
	msgs := readAll(t, view(t, s, ""))
	if len(msgs) != 3 {
		t.Fatalf("read %d messages, want 3", len(msgs))
	}
	seen := map[string]bool{}
	for i, m := range msgs {
		id, ts := field(t, m.Raw, "id"), field(t, m.Raw, "ts")
		if id == "" || seen[id] {
			t.Errorf("message %d: id %q is missing or not unique: %s", i, id, m.Raw)
		}
		seen[id] = true
		when, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil {
			t.Errorf("message %d: ts %q: %v", i, ts, err)
		}
		if i != 1 {
			wantUUIDv7(t, "a generated message", id)
			if when.Before(before) || when.After(time.Now().Add(time.Minute)) {
				t.Errorf("message %d: ts %v, want about now", i, when)
			}
		}
	}
	if id, ts := field(t, msgs[1].Raw, "id"), field(t, msgs[1].Raw, "ts"); id != "my-id" || ts != "2020-01-01T00:00:00Z" {
		t.Errorf("given id and ts not kept: %s", msgs[1].Raw)
	}
	if !bytes.Contains(msgs[0].Raw, []byte(`"extra":{"keep":[1,2,3]}`)) || !bytes.Contains(msgs[0].Raw, []byte(`"n":1.50`)) {
		t.Errorf("fields not kept as given: %s", msgs[0].Raw)
	}
}

// appendLossless: a compact message with its own id and ts is stored as
// given, byte for byte (DESIGN.md: imported sessions give their original
// bytes back exactly).
func appendLossless(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	in := [][]byte{
		[]byte(`{"role":"user","content":"hi","extra":{"keep":[1,2,3]},"id":"my-id","ts":"2020-01-01T00:00:00Z"}`),
		[]byte(`{"ts":"2020-01-01T00:00:01Z","id":"x2","role":"assistant","content":[{"type":"text","text":"é \u00e9 \n"}],"model":"m","z":null}`),
	}
	appendOK(t, s, "", in...)
	for i, m := range readAll(t, view(t, s, "")) {
		if !bytes.Equal(m.Raw, in[i]) {
			t.Errorf("message %d stored as\n%s\nwant\n%s", i, m.Raw, in[i])
		}
	}
}

// appendNoBranch: an id that names no branch of the session is not found,
// and nothing is stored anywhere.
func appendNoBranch(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	main := defaultBranch(t, s)
	x := fork(t, s, "", backing.Head, "x")
	if err := s.DeleteBranch(x.ID); err != nil {
		t.Fatal(err)
	}
	// Ids are opaque: one that looks like a path names no branch either.
	for _, id := range []string{x.ID, "01a00000-0000-7000-8000-00000000dead", "nope", "main", "x",
		"a/b", s.ID(), "../meta", "../branches/" + main.ID, "./" + main.ID, main.ID + "/"} {
		err := s.AppendID(id, [][]byte{msg("user", "lost")})
		wantErr(t, "AppendID to branch id "+id, err, backing.ErrNotFound)
	}
	bs, _ := s.Branches()
	if len(bs) != 1 {
		t.Errorf("branches = %+v, want main alone", bs)
	}
	if v := view(t, s, ""); v.Len() != 0 {
		t.Errorf("main has %d messages, want none", v.Len())
	}
	if bad, _ := s.BadBranches(); len(bad) != 0 {
		t.Errorf("BadBranches = %+v", bad)
	}
	if names, _ := st.Names(); !slices.Equal(names, []string{"s"}) {
		t.Errorf("Names = %q", names)
	}
}

// appendDefault: "" and the default branch's id are the same branch.
func appendDefault(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	main := defaultBranch(t, s)
	appendOK(t, s, "", msg("user", "by empty id"))
	appendOK(t, s, main.ID, msg("assistant", "by id"))
	if got := contents(t, s, main.ID); !slices.Equal(got, []string{"by empty id", "by id"}) {
		t.Errorf("default branch = %q", got)
	}
}

func appendEmpty(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	if err := s.AppendID("", nil); err != nil {
		t.Errorf("AppendID of no messages: %v", err)
	}
	if err := s.AppendID("", [][]byte{}); err != nil {
		t.Errorf("AppendID of no messages: %v", err)
	}
	if v := view(t, s, ""); v.Len() != 0 {
		t.Errorf("an empty append stored %d messages", v.Len())
	}
}

// appendOtherBranch: an append goes to its branch alone.
func appendOtherBranch(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	x := fork(t, s, "", backing.Head, "x")
	y := fork(t, s, "", backing.Head, "y")
	appendOK(t, s, x.ID, msg("user", "x1"))
	appendOK(t, s, y.ID, msg("user", "y1"))
	appendOK(t, s, "", msg("user", "m1"))
	for id, want := range map[string][]string{"": {"m1"}, x.ID: {"x1"}, y.ID: {"y1"}} {
		if got := contents(t, s, id); !slices.Equal(got, want) {
			t.Errorf("branch %q = %q, want %q", id, got, want)
		}
	}
}

// appendOtherSession: a session's branch ids mean nothing in another.
func appendOtherSession(t *testing.T, st backing.Store) {
	a, b := newSession(t, st, "a"), newSession(t, st, "b")
	x := fork(t, a, "", backing.Head, "x")
	wantErr(t, "AppendID of another session's branch", b.AppendID(x.ID, [][]byte{msg("user", "lost")}), backing.ErrNotFound)
	_, err := b.ViewID(x.ID)
	wantErr(t, "ViewID of another session's branch", err, backing.ErrNotFound)
	_, err = b.Fork(x.ID, backing.Head, "y")
	wantErr(t, "Fork of another session's branch", err, backing.ErrNotFound)
	if v := view(t, a, x.ID); v.Len() != 0 {
		t.Errorf("x has %d messages", v.Len())
	}
}
