package filestore

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

func openStore(t *testing.T) *Store {
	t.Helper()
	st, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// reopen opens session name of st afresh, as another process would: with
// no index, branch list or cache of st's.
func reopen(t *testing.T, st *Store, name string) *Session {
	t.Helper()
	st2, err := Open(st.Root(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := st2.Session(name)
	if err != nil {
		t.Fatal(err)
	}
	return s.(*Session)
}

func newSession(t *testing.T, st *Store, name string) *Session {
	t.Helper()
	s, _, err := st.Create(name, backing.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	return s.(*Session)
}

func msg(role, content string) []byte {
	b, _ := json.Marshal(map[string]string{"role": role, "content": content})
	return b
}

// appendTurns appends n turns of a user question and an assistant answer,
// with contents "<prefix>q<i>" and "<prefix>a<i>".
func appendTurns(t *testing.T, s *Session, branch, prefix string, n int) {
	t.Helper()
	for i := 1; i <= n; i++ {
		q, a := fmt.Sprintf("%sq%d", prefix, i), fmt.Sprintf("%sa%d", prefix, i)
		if err := s.Append(branch, [][]byte{msg("user", q), msg("assistant", a)}); err != nil {
			t.Fatal(err)
		}
	}
}

// readBranch reads every message of a branch.
func readBranch(t *testing.T, s *Session, branch string) []backing.Message {
	t.Helper()
	v, err := s.View(branch)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := v.Read(0, v.Len())
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

// contents reads a branch and returns each message's content string.
func contents(t *testing.T, s *Session, branch string) []string {
	t.Helper()
	msgs := readBranch(t, s, branch)
	out := make([]string, len(msgs))
	for i, m := range msgs {
		var x struct{ Content string }
		if err := json.Unmarshal(m.Raw, &x); err != nil {
			t.Fatalf("message %d: %v: %s", i, err, m.Raw)
		}
		out[i] = x.Content
	}
	return out
}

func logPath(t *testing.T, s *Session, branch string) string {
	t.Helper()
	b, err := s.Branch(branch)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(s.Dir(), "logs", b.ID+".jsonl")
}

func appendRaw(t *testing.T, path, data string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// idOf is the id of branch name: branch operations take ids.
func idOf(t testing.TB, s *Session, name string) string {
	t.Helper()
	b, err := s.Branch(name)
	if err != nil {
		t.Errorf("branch %q: %v", name, err)
	}
	return b.ID
}

// concrete is the file engine's own session behind a lookup, for tests
// that use more of it than the contract (nil when the lookup failed).
func concrete(s backing.Session, _ error) *Session {
	c, _ := s.(*Session)
	return c
}

// Append is AppendID to the branch named branch ("" the default), as the
// tests write most.
func (s *Session) Append(branch string, msgs [][]byte) error {
	if len(msgs) == 0 {
		return nil
	}
	b, err := s.Branch(branch)
	if err != nil {
		return err
	}
	return s.AppendID(b.ID, msgs)
}

// View is the view of the branch named branch ("" the default), as the
// tests read most.
func (s *Session) View(branch string) (*View, error) {
	b, err := s.Branch(branch)
	if err != nil {
		return nil, err
	}
	return s.view(b)
}
