package backing_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing"
)

func snapshotLine(t *testing.T, path string, turn int, content []byte, exists bool) []byte {
	t.Helper()
	line, err := backing.SnapshotEvent(path, turn, content, exists, 0o640)
	if err != nil {
		t.Fatal(err)
	}
	return line
}

func snapshots(t *testing.T, s backing.Session, branchID string) (backing.View, []backing.Snapshot) {
	t.Helper()
	v, err := s.ViewID(branchID)
	if err != nil {
		t.Fatal(err)
	}
	all, err := backing.Snapshots(v, backing.Meta{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return v, all
}

// The event line is the documented one: text as a JSON string, other
// bytes in base64, size, sha256 and mode; a file that did not exist has
// no content.
func TestSnapshotEvent(t *testing.T) {
	got := string(snapshotLine(t, "/p/a.go", 2, []byte("hi\n"), true))
	want := `{"role":"event","content":"","event":"file_snapshot","data":{"path":"/p/a.go","turn":2,"exists":true,"content":"hi\n","size":3,"sha256":"98ea6e4f216f2fb4b69fff9b3a44842c38686ca685f3f55dc48c5d3fb1107be4","mode":416}}`
	if got != want {
		t.Errorf("SnapshotEvent =\n%s\nwant\n%s", got, want)
	}
	if got := string(snapshotLine(t, "/p/b", 1, []byte{0xff, 0}, true)); !strings.Contains(got, `"content":"/wA=","encoding":"base64","size":2`) {
		t.Errorf("binary content: %s", got)
	}
	if got := string(snapshotLine(t, "/p/new", 1, nil, false)); !strings.HasSuffix(got, `"data":{"path":"/p/new","turn":1,"exists":false}}`) {
		t.Errorf("a file that did not exist: %s", got)
	}
	for _, p := range []string{"rel/a", "/p/../a", "/p/", ""} {
		if _, err := backing.SnapshotEvent(p, 1, nil, false, 0); !errors.Is(err, backing.ErrInvalid) {
			t.Errorf("SnapshotEvent(%q): %v, want ErrInvalid", p, err)
		}
	}
}

// An append refuses a file_snapshot line that breaks its shape, storing
// nothing, and takes one a harness writes by hand without size or sha256.
func TestSnapshotShape(t *testing.T) {
	s := session(t, openStore(t), "s", backing.Meta{}, time.Now())
	main := branchID(t, s, "")
	for _, data := range []string{
		`{"turn":1,"exists":false}`,
		`{"path":"a","turn":1,"exists":false}`,
		`{"path":"/a","turn":0,"exists":false}`,
		`{"path":"/a","turn":1}`,
		`{"path":"/a","turn":1,"exists":false,"content":""}`,
		`{"path":"/a","turn":1,"exists":true}`,
		`{"path":"/a","turn":1,"exists":true,"content":"x","size":2}`,
		`{"path":"/a","turn":1,"exists":true,"content":"x","sha256":"00"}`,
		`{"path":"/a","turn":1,"exists":true,"content":"!!","encoding":"base64"}`,
		`{"path":"/a","turn":1,"exists":true,"content":"x","encoding":"gzip"}`,
		`{"path":"/a","turn":"1","exists":true,"content":"x"}`,
	} {
		line := fmt.Appendf(nil, `{"role":"event","content":"","event":"file_snapshot","data":%s}`, data)
		if err := s.AppendID(main, [][]byte{line}); !errors.Is(err, backing.ErrInvalid) {
			t.Errorf("append of data %s: %v, want ErrInvalid", data, err)
		}
	}
	if err := s.AppendID(main, [][]byte{[]byte(`{"role":"event","content":"","event":"file_snapshot","data":{"path":"/a","turn":1,"exists":true,"content":"AAE=","encoding":"base64"}}`)}); err != nil {
		t.Fatal(err)
	}
	v, all := snapshots(t, s, main)
	if v.Len() != 1 || len(all) != 1 || all[0].Size != 2 || all[0].SHA256 != "" {
		t.Fatalf("%d lines, snapshots %+v", v.Len(), all)
	}
	if c, err := backing.SnapshotContent(v, all[0]); err != nil || !bytes.Equal(c, []byte{0, 1}) {
		t.Errorf("content %q, %v", c, err)
	}
}

// The first snapshot of a turn and path stands; an imported line of the
// kind is the agent's and stands for nothing; a fork has the snapshots
// before its fork point.
func TestSnapshots(t *testing.T) {
	s := session(t, openStore(t), "s", backing.Meta{}, time.Now())
	main := branchID(t, s, "")
	appendTexts(t, s, main, "q1")
	lines := [][]byte{
		snapshotLine(t, "/p/a", 1, []byte("a0"), true),
		snapshotLine(t, "/p/a", 1, []byte("a-later"), true), // the same turn: kept, stands for nothing
		snapshotLine(t, "/p/b", 1, []byte{0xfe}, true),
		[]byte(`{"role":"event","content":"","event":"file_snapshot","data":{"path":"/p/c","turn":1,"exists":false},"source_seq":9}`),
	}
	if err := s.AppendID(main, lines); err != nil {
		t.Fatal(err)
	}
	fork, err := s.Fork(main, backing.Head, "f")
	if err != nil {
		t.Fatal(err)
	}
	appendTexts(t, s, main, "q2")
	if err := s.AppendID(main, [][]byte{snapshotLine(t, "/p/a", 2, []byte("a1"), true)}); err != nil {
		t.Fatal(err)
	}
	v, all := snapshots(t, s, main)
	var got []string
	for _, sn := range all {
		c, err := backing.SnapshotContent(v, sn)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d %s %q @%d", sn.Turn, sn.Path, c, sn.Index))
	}
	if want := []string{`1 /p/a "a0" @1`, `1 /p/b "\xfe" @3`, `2 /p/a "a1" @6`}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("snapshots %q, want %q", got, want)
	}
	if n := len(backing.TurnSnapshots(all, 1)); n != 2 {
		t.Errorf("turn 1 has %d snapshots, want 2", n)
	}
	if _, fall := snapshots(t, s, fork.ID); len(fall) != 2 {
		t.Errorf("the fork has %d snapshots, want the 2 before its fork point", len(fall))
	}
}

// Numbers an encoder writes as floats (3.0) are numbers: a line append
// takes is a snapshot read back with its turn, size and mode.
func TestSnapshotFloats(t *testing.T) {
	s := session(t, openStore(t), "s", backing.Meta{}, time.Now())
	main := branchID(t, s, "")
	appendTexts(t, s, main, "q1")
	line := []byte(`{"role":"event","content":"","event":"file_snapshot","data":{"path":"/p/a","turn":1.0,"exists":true,"content":"abc","size":3.0,"mode":420.0}}`)
	if err := s.AppendID(main, [][]byte{line}); err != nil {
		t.Fatal(err)
	}
	v, all := snapshots(t, s, main)
	if len(all) != 1 || all[0].Turn != 1 || all[0].Size != 3 || all[0].Mode != 0o644 {
		t.Fatalf("snapshots: %+v", all)
	}
	if c, err := backing.SnapshotContent(v, all[0]); err != nil || string(c) != "abc" {
		t.Errorf("content %q, %v", c, err)
	}
}

// revertTree is a branch of three turns that snapshot and edit files in
// dir, each file last modified an hour ago (before the turns ended):
//
//	turn 1: a.txt "a0" → "a1", new.txt (did not exist) → "n1"
//	turn 2: a.txt "a1" → "a2", sub/bin (binary, 0755) → "b2"
//	turn 3: gone.txt "g0" → deleted
func revertTree(t *testing.T) (backing.Session, string, string) {
	t.Helper()
	dir := t.TempDir()
	s := session(t, openStore(t), "s", backing.Meta{}, time.Now())
	main := branchID(t, s, "")
	path := func(p string) string { return filepath.Join(dir, p) }
	write := func(p, c string, mode os.FileMode) {
		t.Helper()
		os.MkdirAll(filepath.Dir(path(p)), 0o755)
		if err := os.WriteFile(path(p), []byte(c), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(path(p), mode)
		old := time.Now().Add(-time.Hour)
		os.Chtimes(path(p), old, old)
	}
	snap := func(turn int, p string) {
		t.Helper()
		c, err := os.ReadFile(path(p))
		fi, _ := os.Stat(path(p))
		var line []byte
		if err != nil {
			line, err = backing.SnapshotEvent(path(p), turn, nil, false, 0)
		} else {
			line, err = backing.SnapshotEvent(path(p), turn, c, true, fi.Mode())
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := s.AppendID(main, [][]byte{line}); err != nil {
			t.Fatal(err)
		}
	}
	write("a.txt", "a0", 0o644)
	write("sub/bin", "\x00\xffb0", 0o755)
	write("gone.txt", "g0", 0o600)
	appendTexts(t, s, main, "turn 1")
	snap(1, "a.txt")
	snap(1, "new.txt")
	write("a.txt", "a1", 0o644)
	write("new.txt", "n1", 0o644)
	appendTexts(t, s, main, "turn 2")
	snap(2, "a.txt")
	snap(2, "sub/bin")
	write("a.txt", "a2", 0o644)
	write("sub/bin", "b2", 0o644)
	appendTexts(t, s, main, "turn 3")
	snap(3, "gone.txt")
	os.Remove(path("gone.txt"))
	if err := s.AppendID(main, [][]byte{[]byte(`{"role":"assistant","content":"done"}`)}); err != nil {
		t.Fatal(err)
	}
	return s, main, dir
}

// tree reads every file under dir as "path mode content".
func tree(t *testing.T, dir string) string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		c, _ := os.ReadFile(p)
		fi, _ := d.Info()
		rel, _ := filepath.Rel(dir, p)
		out = append(out, fmt.Sprintf("%s %o %q", rel, fi.Mode().Perm(), c))
		return nil
	})
	return strings.Join(out, "\n")
}

func revert(t *testing.T, s backing.Session, main string, to int) []backing.RevertStep {
	t.Helper()
	v, all := snapshots(t, s, main)
	steps, err := backing.PlanRevert(v, all, to)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range steps {
		if st.Unsafe != "" {
			t.Fatalf("%s %s unsafe: %s", st.Action, st.Path, st.Unsafe)
		}
	}
	if n, err := backing.ApplyRevert(v, steps); err != nil || n != len(steps) {
		t.Fatalf("ApplyRevert: %d, %v", n, err)
	}
	return steps
}

// Reverting puts back byte for byte, with modes, the state before the
// first turn after N of every file a turn after N snapshotted, deleting
// the ones that did not exist and making the deleted ones again; a
// revert further back after it is safe, and one to where things are
// changes nothing.
func TestRevert(t *testing.T) {
	s, main, dir := revertTree(t)
	steps := revert(t, s, main, 1)
	var got []string
	for _, st := range steps {
		got = append(got, st.Action+" "+strings.TrimPrefix(st.Path, dir+"/"))
	}
	if want := "[restore a.txt create gone.txt restore sub/bin]"; fmt.Sprint(got) != want {
		t.Errorf("steps %v, want %s", got, want)
	}
	if got, want := tree(t, dir), "a.txt 644 \"a1\"\ngone.txt 600 \"g0\"\nnew.txt 644 \"n1\"\nsub/bin 755 \"\\x00\\xffb0\""; got != want {
		t.Errorf("after revert to 1:\n%s\nwant\n%s", got, want)
	}
	if steps := revert(t, s, main, 1); len(steps) != 0 {
		t.Errorf("reverting again changes %+v", steps)
	}
	revert(t, s, main, 0)
	if got, want := tree(t, dir), "a.txt 644 \"a0\"\ngone.txt 600 \"g0\"\nsub/bin 755 \"\\x00\\xffb0\""; got != want {
		t.Errorf("after revert to 0:\n%s\nwant\n%s", got, want)
	}
	v, all := snapshots(t, s, main)
	if _, err := backing.PlanRevert(v, all, 4); !errors.Is(err, backing.ErrNotFound) {
		t.Errorf("revert to turn 4 of 3: %v", err)
	}
}

// A file modified after the last turn that snapshotted it ended, with a
// content no snapshot recorded, is unsafe to overwrite or delete; one a
// snapshot recorded, or gone, is safe.
func TestRevertUnsafe(t *testing.T) {
	s, main, dir := revertTree(t)
	later := time.Now().Add(time.Hour)
	os.WriteFile(filepath.Join(dir, "new.txt"), []byte("mine"), 0o644)
	os.Chtimes(filepath.Join(dir, "new.txt"), later, later)
	os.WriteFile(filepath.Join(dir, "sub/bin"), []byte("\x00\xffb0"), 0o755) // as turn 2's snapshot has it
	os.Chmod(filepath.Join(dir, "sub/bin"), 0o755)
	os.Chtimes(filepath.Join(dir, "sub/bin"), later, later)
	v, all := snapshots(t, s, main)
	steps, err := backing.PlanRevert(v, all, 0)
	if err != nil {
		t.Fatal(err)
	}
	unsafe := map[string]string{}
	for _, st := range steps {
		unsafe[strings.TrimPrefix(st.Path, dir+"/")] = st.Action + ":" + st.Unsafe
	}
	if u := unsafe["new.txt"]; !strings.HasPrefix(u, "delete:modified ") || !strings.Contains(u, "after turn 1 (the last that snapshotted it) ended") {
		t.Errorf("new.txt: %q", u)
	}
	for _, p := range []string{"a.txt", "gone.txt"} {
		if u := unsafe[p]; !strings.HasSuffix(u, ":") {
			t.Errorf("%s is unsafe: %q", p, u)
		}
	}
	if _, ok := unsafe["sub/bin"]; ok {
		t.Errorf("sub/bin, as it was before turn 2, is changed: %q", unsafe["sub/bin"])
	}
}
