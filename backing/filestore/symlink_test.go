package filestore

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// treeSnapshot describes every entry under root, links not followed: path,
// mode, a hash of each file's bytes, each link's target.
func treeSnapshot(t *testing.T, root string) string {
	t.Helper()
	var rows []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			rows = append(rows, fmt.Sprintf("%s error %v", p, err))
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		row := fmt.Sprintf("%s %v", strings.TrimPrefix(p, root), fi.Mode())
		switch {
		case fi.Mode().IsRegular():
			data, _ := os.ReadFile(p)
			row += fmt.Sprintf(" %x", sha256.Sum256(data))
		case fi.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			row += " -> " + target
		}
		rows = append(rows, row)
		return nil
	})
	sort.Strings(rows)
	return strings.Join(rows, "\n")
}

// outsideLog is a file outside the store that a planted link points to: an
// invalid line (which a repair through the link would blank) and no final
// newline (which an append through it would cut as a torn tail).
const outsideLog = `{"role":"user","content":"outside 1"}` + "\nnot json\n" + `{"role":"user","content":"no final newline"}`

// Each entry of a session that the red team replaced by a symbolic link:
// reads and writes of that session fail with ErrSymlink (where they need
// the entry), the other session works, fsck reports the link, and neither
// the operations nor fsck --repair change a byte or a mode outside.
func TestSymlinksInSessionNotFollowed(t *testing.T) {
	cases := []struct {
		name string
		// plant replaces an entry of session s (branch x forked from main)
		// by a link into outside, a folder of its own.
		plant    func(t *testing.T, s *Session, outside string)
		mustFail []string // operations that must fail with ErrSymlink
	}{
		{"branch log", func(t *testing.T, s *Session, outside string) {
			link(t, filepath.Join(outside, "log.jsonl"), logPath(t, s, "x"), outsideLog)
		}, []string{"append x", "view x"}},
		{"default log", func(t *testing.T, s *Session, outside string) {
			link(t, filepath.Join(outside, "log.jsonl"), logPath(t, s, ""), outsideLog)
		}, []string{"append main", "view main"}},
		{"meta.json", func(t *testing.T, s *Session, outside string) {
			moveAndLink(t, filepath.Join(s.Dir(), "meta.json"), filepath.Join(outside, "meta.json"))
		}, []string{"meta", "edit meta", "set title", "trash"}},
		{"lock to nothing", func(t *testing.T, s *Session, outside string) {
			os.Remove(filepath.Join(s.Dir(), "lock"))
			os.Symlink(filepath.Join(outside, "lock"), filepath.Join(s.Dir(), "lock"))
		}, []string{"append main", "fork", "edit meta"}},
		{"lock to a file", func(t *testing.T, s *Session, outside string) {
			link(t, filepath.Join(outside, "lock"), filepath.Join(s.Dir(), "lock"), "")
		}, []string{"append main", "fork", "edit meta"}},
		{"logs", func(t *testing.T, s *Session, outside string) {
			moveAndLink(t, filepath.Join(s.Dir(), "logs"), filepath.Join(outside, "logs"))
		}, []string{"append main", "view main", "view x"}},
		{"branches", func(t *testing.T, s *Session, outside string) {
			moveAndLink(t, filepath.Join(s.Dir(), "branches"), filepath.Join(outside, "branches"))
		}, []string{"append main", "view main", "fork"}},
		{"branch file", func(t *testing.T, s *Session, outside string) {
			b, _ := s.Branch("x")
			moveAndLink(t, s.branchFile(b.ID), filepath.Join(outside, "x.json"))
		}, []string{}},
		{"trash", func(t *testing.T, s *Session, outside string) {
			os.Mkdir(filepath.Join(outside, "trash"), 0o755)
			os.Symlink(filepath.Join(outside, "trash"), filepath.Join(s.Dir(), "trash"))
		}, []string{"delete x"}},
		{"quarantine", func(t *testing.T, s *Session, outside string) {
			os.Mkdir(filepath.Join(outside, "quarantine"), 0o755)
			os.Symlink(filepath.Join(outside, "quarantine"), filepath.Join(s.Dir(), "quarantine"))
			appendRaw(t, logPath(t, s, ""), `{"role":"user","content":"torn`)
		}, []string{"append main"}},
		{"session folder", func(t *testing.T, s *Session, outside string) {
			moveAndLink(t, s.Dir(), filepath.Join(outside, "session"))
		}, []string{"meta", "append main", "view main", "fork", "edit meta"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := openStore(t)
			s := newSession(t, st, "s")
			appendTurns(t, s, "", "", 1)
			x, err := s.Fork("", backing.Head, "x")
			if err != nil {
				t.Fatal(err)
			}
			appendTurns(t, s, "x", "x", 1)
			other := newSession(t, st, "other")
			appendTurns(t, other, "", "", 1)
			outside := t.TempDir()
			tc.plant(t, s, outside)
			before := treeSnapshot(t, outside)

			// A fresh process, as after the damage: nothing cached.
			st2, err := Open(st.Root(), Options{})
			if err != nil {
				t.Fatal(err)
			}
			s2 := st2.handle(s.ID())
			m := msg("user", "written")
			ops := []struct {
				name string
				do   func() error
			}{
				{"meta", func() error { _, err := s2.Meta(); return err }},
				{"view main", func() error { _, err := s2.View(""); return err }},
				{"view x", func() error { _, err := s2.View("x"); return err }},
				{"append main", func() error { return s2.Append("", [][]byte{m}) }},
				{"append x", func() error { return s2.Append("x", [][]byte{m}) }},
				{"fork", func() error { _, err := s2.Fork("", backing.Head, "y"); return err }},
				{"edit meta", func() error {
					_, err := s2.EditMeta([]byte(`{"id":"` + s.ID() + `","title":"t"}`))
					return err
				}},
				{"set title", func() error { return s2.SetTitle("t") }},
				{"delete x", func() error { return s2.DeleteBranch(x.ID) }},
				{"trash", func() error { return st2.Trash("s") }},
			}
			for _, op := range ops { // reads first, then writes, the trash last
				err := op.do()
				if contains(tc.mustFail, op.name) && !errors.Is(err, ErrSymlink) {
					t.Errorf("%s: %v, want ErrSymlink", op.name, err)
				}
			}
			rep, err := st2.Fsck(false)
			if err != nil {
				t.Fatal(err)
			}
			if !hasProblem(rep, "symbolic link") {
				t.Errorf("fsck does not report the link: %+v", rep.Problems)
			}
			if _, err := st2.Fsck(true); err != nil {
				t.Fatal(err)
			}
			if after := treeSnapshot(t, outside); after != before {
				t.Errorf("the link's target changed:\n%s\nwas\n%s", after, before)
			}
			o, err := st2.Session("other")
			if err != nil {
				t.Fatal(err)
			}
			if err := o.AppendID("", [][]byte{msg("user", "still fine")}); err != nil {
				t.Errorf("the other session: %v", err)
			}
			if got := contents(t, o.(*Session), ""); !equal(got, []string{"q1", "a1", "still fine"}) {
				t.Errorf("the other session reads %v", got)
			}
		})
	}
}

// A link in the store's own top level (FORMAT, the lock, a folder of names
// or sessions) refuses the whole store at Open: nothing is read through it,
// and fsck cannot chmod its target.
func TestStoreLevelSymlinksRefused(t *testing.T) {
	for _, entry := range []string{"FORMAT", "lock", "sessions", "names", "archive", "trash"} {
		t.Run(entry, func(t *testing.T) {
			root := t.TempDir()
			st, err := Open(root, Options{})
			if err != nil {
				t.Fatal(err)
			}
			newSession(t, st, "s")
			if _, err := st.Fsck(false); err != nil { // makes the store lock
				t.Fatal(err)
			}
			outside := t.TempDir()
			moveAndLink(t, filepath.Join(root, entry), filepath.Join(outside, entry))
			os.Chmod(filepath.Join(outside, entry), 0o755)
			before := treeSnapshot(t, outside)
			st2, err := Open(root, Options{})
			if !errors.Is(err, ErrSymlink) || !strings.Contains(err.Error(), entry) {
				t.Errorf("Open = %v, want ErrSymlink naming %s", err, entry)
			}
			if err == nil { // the store opened: fsck must still not touch the target
				st2.Fsck(true)
			}
			if after := treeSnapshot(t, outside); after != before {
				t.Errorf("the link's target changed:\n%s\nwas\n%s", after, before)
			}
		})
	}
}

// A name link is used only if it points to ../sessions/<a valid id>.
func TestNameLinkOutsideStoreRefused(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "s")
	outside := t.TempDir()
	copyDir(t, s.Dir(), filepath.Join(outside, "copy"))
	for name, target := range map[string]string{
		"abs":     filepath.Join(outside, "copy"),
		"up":      "../../" + filepath.Base(outside) + "/copy",
		"dotdot":  "../sessions/..",
		"dot":     "../sessions/.",
		"through": "../sessions/../sessions/" + s.ID(),
	} {
		os.Symlink(target, filepath.Join(st.Root(), "names", name))
		if _, err := st.Session(name); !errors.Is(err, backing.ErrInvalid) {
			t.Errorf("%s -> %s: Session = %v, want ErrInvalid", name, target, err)
		}
	}
}

// link puts a link at path to target, a new file holding data.
func link(t *testing.T, target, path, data string) {
	t.Helper()
	if err := os.WriteFile(target, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(target, 0o644)
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// moveAndLink moves path to target and leaves a link to it in its place,
// so that a store following the link would find what it expects.
func moveAndLink(t *testing.T, path, target string) {
	t.Helper()
	if err := os.Rename(path, target); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// copyDir copies the tree at from to to: folders and files with their
// modes, links as links.
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(to, strings.TrimPrefix(p, from))
		fi, err := d.Info()
		switch {
		case err != nil:
			return err
		case d.Type()&os.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, dst)
		case d.IsDir():
			return os.MkdirAll(dst, fi.Mode().Perm())
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, fi.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
