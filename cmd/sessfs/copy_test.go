package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/backing/pgstore/pgtest"
)

// sameSession fails the test unless session name reads the same from
// stores a and b: every branch as JSON lines and Markdown, the whole
// session as export.json, and the agent's original file when it has one.
func sameSession(t *testing.T, a, b *store, name string) {
	t.Helper()
	if got, want := b.ok("branches", name), a.ok("branches", name); got != want {
		t.Fatalf("%s: branches in %s:\n%s\nwant, as in %s:\n%s", name, b.dir, got, a.dir, want)
	}
	var branches []struct{ Name string }
	if err := json.Unmarshal([]byte(a.ok("branches", "--json", name)), &branches); err != nil {
		t.Fatal(err)
	}
	for _, br := range branches {
		for _, format := range []string{"jsonl", "md"} {
			if got, want := b.ok("show", "--format", format, "--branch", br.Name, name), a.ok("show", "--format", format, "--branch", br.Name, name); got != want {
				t.Fatalf("%s: branch %s as %s differs in %s", name, br.Name, format, b.dir)
			}
		}
	}
	// export.json: the meta and the messages. Its branches are the
	// engine's records, ids and fork offsets in its own terms, which a
	// copy makes anew; branches above compared what they mean.
	type doc struct {
		Meta     json.RawMessage   `json:"meta"`
		Messages []json.RawMessage `json:"messages"`
	}
	var got, want doc
	if err := json.Unmarshal([]byte(b.ok("export", "--format", "json", name)), &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(a.ok("export", "--format", "json", name)), &want); err != nil {
		t.Fatal(err)
	}
	if string(got.Meta) != string(want.Meta) || !slices.EqualFunc(got.Messages, want.Messages, func(x, y json.RawMessage) bool { return bytes.Equal(x, y) }) {
		t.Fatalf("%s: export.json differs in %s:\n%s\nwant:\n%s", name, b.dir, got.Meta, want.Meta)
	}
	if want := a.run("export", "--format", "original", name); want.code == 0 {
		if got := b.ok("export", "--format", "original", name); got != want.stdout {
			t.Fatalf("%s: the original file differs in %s", name, b.dir)
		}
	}
}

// TestCopyRoundTrip: the real sessions, with forks of forks and an
// archived one, copied file → PostgreSQL → file read the same at every
// step, ids, meta and original bytes included; copying again changes
// nothing, and a session grown in the source is brought up to date.
func TestCopyRoundTrip(t *testing.T) {
	folders, _ := dataFiles(t)
	a, b := newStore(t), newStore(t)
	pg := &store{t: t, dir: pgtest.URL(t)}
	a.ok("import", folders...)
	a.ok("new", "forked")
	a.ok("append", "forked", "first question")
	a.ok("append", "--role", "assistant", "forked", "first answer")
	a.ok("fork", "forked", "try")
	a.ok("append", "--branch", "try", "forked", "another question")
	a.ok("fork", "--from", "try", "forked", "deeper")
	a.ok("append", "--branch", "deeper", "forked", "deeper still")
	a.ok("append", "forked", "main goes on")
	a.ok("new", "shelved")
	a.ok("append", "shelved", "kept for later")
	a.ok("archive", "shelved")
	a.ok("new", "gone")
	a.ok("rm", "gone")

	names := a.sessions(true)
	out := a.ok("copy", "--to", pg.dir)
	if n := strings.Count(out, "copied "); n != len(names)-1 {
		t.Errorf("copy printed %d sessions copied, want %d (all but the trashed one):\n%s", n, len(names)-1, out)
	}
	if !strings.Contains(out, "copied forked (5 messages, 2 branches)") {
		t.Errorf("copy should say what it copied of forked:\n%s", out)
	}
	b.ok("copy", "--from", pg.dir, "--to", b.dir)
	for _, s := range names {
		if s.State == "trashed" {
			if _, ok := b.session(s.Name, ""); ok {
				t.Errorf("%s was in the trash and was copied", s.Name)
			}
			continue
		}
		got, ok := b.session(s.Name, s.State)
		if !ok || got.ID != s.ID {
			t.Errorf("%s (%s, %s) is not in the copy of the copy as it was: %+v", s.Name, s.ID, s.State, got)
			continue
		}
		sameSession(t, a, pg, s.Name)
		sameSession(t, a, b, s.Name)
	}

	// The listing is the same, in the same order: each session's last
	// activity came across with it.
	if got, want := b.ok("ls"), a.ok("ls"); got != want {
		t.Errorf("ls of the copy of the copy:\n%s\nwant:\n%s", got, want)
	}

	// Again: nothing to do. Then what grew is added, and only that.
	if out := a.ok("copy", "--to", pg.dir, "forked"); out != "forked is up to date\n" {
		t.Errorf("copy again = %q", out)
	}
	a.ok("append", "--branch", "deeper", "forked", "grown since")
	a.ok("fork", "forked", "later")
	if out := a.ok("copy", "--to", pg.dir, "forked"); out != "updated forked (1 message, 1 branch added)\n" {
		t.Errorf("copy of a grown session = %q", out)
	}
	sameSession(t, a, pg, "forked")
}

// TestCopyRefuses: a branch grown apart in the two stores, a name another
// session has, a session in the destination's trash and a copy onto its
// own store are refused, each with a message, and the others still copied.
func TestCopyRefuses(t *testing.T) {
	a, b := newStore(t), newStore(t)
	a.ok("new", "apart")
	a.ok("append", "apart", "shared")
	a.ok("new", "fine")
	a.ok("copy", "--to", b.dir, "apart")
	a.ok("append", "apart", "only in a")
	b.ok("append", "apart", "only in b")
	b.ok("new", "fine") // another session, by id, under the same name
	a.ok("new", "binned")
	a.ok("copy", "--to", b.dir, "binned")
	b.ok("rm", "binned")

	r := a.run("copy", "--to", b.dir)
	if r.code != exitFail || !strings.Contains(r.stderr, "apart: branch main: it differs from the source's (message 2 is not the same)") ||
		!strings.Contains(r.stderr, `fine: session "fine": already exists`) || !strings.Contains(r.stderr, "binned: session") ||
		!strings.Contains(r.stderr, "is in the trash of") || !strings.Contains(r.stderr, "3 sessions of 3 not copied") {
		t.Errorf("copy onto sessions of another history = %v", r)
	}
	if got := b.ok("show", "--format", "jsonl", "apart"); strings.Contains(got, "only in a") || !strings.Contains(got, "only in b") {
		t.Errorf("the refused copy changed the destination's branch:\n%s", got)
	}
	a.fails(exitUsage, "--from and --to are the same store", "", "copy", "--to", a.dir)
	a.fails(exitUsage, "--to is required", "", "copy")
}
