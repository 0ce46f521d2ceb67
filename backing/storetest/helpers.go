package storetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/sessfs/sessfs/backing"
)

// newSession creates session name ("" for a generated name) in st.
func newSession(t *testing.T, st backing.Store, name string) backing.Session {
	t.Helper()
	s, _, err := st.Create(name, backing.Meta{})
	if err != nil {
		t.Fatalf("create %q: %v", name, err)
	}
	return s
}

// msg is a message of role with a text content.
func msg(role, content string) []byte {
	b, err := backing.TextMessage(role, content)
	if err != nil {
		panic(err)
	}
	return b
}

// withID is a message of role with a text content and an id of its own.
func withID(role, content, id string) []byte {
	b, _ := json.Marshal(map[string]string{"role": role, "content": content, "id": id})
	return b
}

// ctx is injected context of the given kind: it starts no turn.
func ctx(role, kind, content string) []byte {
	b, _ := json.Marshal(map[string]string{"role": role, "content": content, "context": kind})
	return b
}

// event is a message of role backing.EventRole.
func event(content string) []byte { return msg(backing.EventRole, content) }

// toolResult is a user message holding only a tool result: no prompt.
func toolResult(id string) []byte {
	return []byte(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"out"}]}`)
}

// qa is n turns of a user question and an assistant answer, with contents
// "<prefix>q<i>" and "<prefix>a<i>", i from 1.
func qa(prefix string, n int) [][]byte {
	var out [][]byte
	for i := 1; i <= n; i++ {
		out = append(out, msg("user", fmt.Sprintf("%sq%d", prefix, i)), msg("assistant", fmt.Sprintf("%sa%d", prefix, i)))
	}
	return out
}

// appendOK appends msgs to branch id and fails the test on an error.
func appendOK(t *testing.T, s backing.Session, id string, msgs ...[]byte) {
	t.Helper()
	if err := s.AppendID(id, msgs); err != nil {
		t.Fatalf("append to branch %q: %v", id, err)
	}
}

// view is branch id of s as of now.
func view(t *testing.T, s backing.Session, id string) backing.View {
	t.Helper()
	v, err := s.ViewID(id)
	if err != nil {
		t.Fatalf("view of branch %q: %v", id, err)
	}
	return v
}

// readAll reads every message of v.
func readAll(t *testing.T, v backing.View) []backing.Message {
	t.Helper()
	msgs, err := v.Read(0, v.Len())
	if err != nil {
		t.Fatalf("read [0, %d): %v", v.Len(), err)
	}
	return msgs
}

// contents is the content string of each message of branch id.
func contents(t *testing.T, s backing.Session, id string) []string {
	t.Helper()
	return contentsOf(t, readAll(t, view(t, s, id)))
}

func contentsOf(t *testing.T, msgs []backing.Message) []string {
	t.Helper()
	out := make([]string, len(msgs))
	for i, m := range msgs {
		var x struct {
			Content string `json:"content"`
		}
		if err := json.Unmarshal(m.Raw, &x); err != nil {
			t.Fatalf("message %d: %v: %s", i, err, m.Raw)
		}
		out[i] = x.Content
	}
	return out
}

// field is the string field key of a stored message ("" if absent).
func field(t *testing.T, raw []byte, key string) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("stored message is not a JSON object: %v: %s", err, raw)
	}
	var s string
	if v, ok := m[key]; ok {
		if err := json.Unmarshal(v, &s); err != nil {
			t.Errorf("stored message: %q is not a string: %s", key, raw)
		}
	}
	return s
}

// defaultBranch is s's default branch.
func defaultBranch(t *testing.T, s backing.Session) backing.Branch {
	t.Helper()
	b, err := s.Branch("")
	if err != nil {
		t.Fatalf("default branch: %v", err)
	}
	return b
}

// fork forks branch from at at as name and fails the test on an error.
func fork(t *testing.T, s backing.Session, from string, at int, name string) backing.Branch {
	t.Helper()
	b, err := s.Fork(from, at, name)
	if err != nil {
		t.Fatalf("fork %q at %d of %q: %v", name, at, from, err)
	}
	return b
}

// wantErr fails the test unless err matches target.
func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: err = %v, want %v", what, err, target)
	}
}

// wantUUIDv7 fails the test unless id is a UUID v7 (DESIGN.md: "IDs are
// UUID v7").
func wantUUIDv7(t *testing.T, what, id string) {
	t.Helper()
	u, err := uuid.Parse(id)
	if err != nil || u.Version() != 7 {
		t.Errorf("%s id %q is not a UUID v7 (%v)", what, id, err)
	}
}

// jsonEqual reports whether a and b are the same JSON value, whatever
// their spacing.
func jsonEqual(a, b []byte) bool {
	var x, y bytes.Buffer
	if json.Compact(&x, a) != nil || json.Compact(&y, b) != nil {
		return false
	}
	return bytes.Equal(x.Bytes(), y.Bytes())
}

// tick is more than the coarsest clock a store may stamp changes with: a
// kernel stamps file times from a clock that lags the wall clock by up to
// a jiffy (the suite assumes a filesystem with sub-second times).
const tick = 30 * time.Millisecond

// pastTick waits until the wall clock is a tick past t, polling it, so
// that a change made next is stamped later than t.
func pastTick(t time.Time) {
	for time.Since(t) <= tick {
		time.Sleep(time.Millisecond)
	}
}

// body is a message less the "id" and "ts" the store may add, as
// canonical JSON: what a writer gave, to compare with what it reads.
func body(t *testing.T, raw []byte) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("not a JSON object: %v: %s", err, raw)
	}
	delete(m, "id")
	delete(m, "ts")
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
