package filestore

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/sessfs/sessfs/backing"
)

// fsck carries one run's state.
type fsck struct {
	st     *Store
	repair bool
	rep    backing.FsckReport
}

// report records a problem; when fix is given, the problem is fixable and,
// on a repair run, fix is called and its outcome recorded.
func (c *fsck) report(session, path, what string, fix func() error) {
	c.add(backing.Problem{Session: session, What: what}, path, fix)
}

// note records a leftover of a crash (see Problem.Note); fix tidies it.
func (c *fsck) note(session, path, what string, fix func() error) {
	c.add(backing.Problem{Session: session, What: what, Note: true}, path, fix)
}

func (c *fsck) add(p backing.Problem, path string, fix func() error) {
	rel, err := filepath.Rel(c.st.root, path)
	if err != nil {
		rel = path
	}
	p.Path, p.Fixable = rel, fix != nil
	if fix != nil && c.repair {
		p.Err = fix()
		p.Repaired = p.Err == nil
	}
	c.rep.Problems = append(c.rep.Problems, p)
}

// cannot reports what could not be read, unless a link was in the way:
// every link in a session is reported once, by checkEntries.
func (c *fsck) cannot(session, path string, err error) {
	if !errors.Is(err, ErrSymlink) {
		c.report(session, path, fmt.Sprintf("cannot read: %v", err), nil)
	}
}

// Fsck checks every session of the store: format, names, meta.json,
// branches and their ancestry, logs (torn tails, corrupt lines), leftover
// temporary files and permissions. With repair it fixes what can be fixed
// without losing a byte: whatever it cuts goes to the session's quarantine
// folder first. index/ is derived: fsck reads the logs themselves, never
// their kept indexes (logindex_kept.go), and a kept index is checked
// against its log when read, so a repair (a blanked line, a cut tail)
// leaves it nothing to do.
func (st *Store) Fsck(repair bool) (backing.FsckReport, error) {
	c := &fsck{st: st, repair: repair}
	unlock, err := st.nsLock()
	if err != nil {
		return c.rep, err
	}
	defer unlock()
	c.checkMode(st.root, true, "")
	for d := range storeDirs {
		c.checkMode(st.path(d), true, "")
	}
	c.checkMode(st.path("FORMAT"), false, "")
	c.checkMigrationDone()
	links, err := c.checkLinks()
	if err != nil {
		return c.rep, err
	}
	ents, err := readDir(st.path("sessions"))
	if err != nil {
		return c.rep, err
	}
	for _, e := range ents {
		p := st.path("sessions", e.Name())
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			c.report("", p, linkProblem(p)+", where a session folder belongs", nil)
		case isTemp(e.Name()) && e.IsDir():
			c.checkHalfMade(p)
		case !e.IsDir() || backing.ValidName(e.Name()) != nil:
			c.report("", p, "not a session folder", nil)
		default:
			c.rep.Sessions++
			c.checkSession(st.handle(e.Name()), links[e.Name()])
		}
	}
	return c.rep, nil
}

// checkMigrationDone finds the old copies of a finished migration that a
// kill left before they were removed: nothing reads them, and they take
// about the store's size.
func (c *fsck) checkMigrationDone() {
	p := migrationDonePath(c.st.root)
	if _, err := stat(p); err != nil {
		return
	}
	c.note("", p, "the old copies of a migration that finished, left by an interrupted cleanup: nothing reads them; repair removes them (as the next `sessfs migrate` would)", func() error {
		return removeAll(p)
	})
}

// linkProblem describes a symbolic link sessfs did not make.
func linkProblem(p string) string {
	target, _ := readlink(p)
	return fmt.Sprintf("a symbolic link (to %q) that sessfs did not make and never follows; a human must put what it points to in its place, or remove it", target)
}

// checkHalfMade handles a session folder still under its temporary name: a
// create was interrupted before the session existed, so nothing in it was
// ever acknowledged. Repair removes it, unless it holds a message.
func (c *fsck) checkHalfMade(p string) {
	logs, err := readDir(filepath.Join(p, "logs"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		c.cannot("", p, err)
		return
	}
	for _, e := range logs {
		if fi, err := e.Info(); err != nil || !fi.Mode().IsRegular() || fi.Size() > 0 {
			c.report("", p, "a session folder under a temporary name that holds messages; a human must look at it", nil)
			return
		}
	}
	c.note("", p, "a session folder left by an interrupted create: it holds no message and no name points to it; repair removes it", func() error {
		return removeAll(p)
	})
}

// nameLink is where a session is linked from: names, archive or trash.
type nameLink struct{ dir, name string }

// checkLinks checks names/, archive/ and trash/ and returns, per session
// id, the links to it.
func (c *fsck) checkLinks() (map[string][]nameLink, error) {
	links := map[string][]nameLink{}
	for _, d := range []string{"names", "archive", "trash"} {
		ents, err := readDir(c.st.path(d))
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			p := c.st.path(d, e.Name())
			id, err := readLink(p)
			if err != nil {
				c.report("", p, fmt.Sprintf("not a link to a session: %v", err), nil)
				continue
			}
			if _, err := os.Lstat(c.st.sessionDir(id)); errors.Is(err, os.ErrNotExist) {
				c.report(id, p, "links to a session that does not exist", func() error {
					return remove(p)
				})
				continue
			}
			links[id] = append(links[id], nameLink{d, e.Name()})
		}
	}
	return links, nil
}

func (c *fsck) checkSession(s *Session, links []nameLink) {
	// Entries first, without the lock: a link is reported before anything
	// could be done through it (the lock file itself may be one).
	c.checkEntries(s)
	unlock, err := s.lk.lock()
	if err != nil {
		if !errors.Is(err, ErrSymlink) {
			c.report(s.id, s.dir, fmt.Sprintf("cannot lock: %v", err), nil)
		}
		return
	}
	defer unlock()
	c.checkTemps(s, s.dir)
	c.checkTemps(s, s.path("branches"))
	m, ok := c.checkMeta(s, links)
	if ok {
		c.checkNames(s, m, links)
	}
	c.checkBranches(s)
}

// checkEntries walks the session's folder (never through a link) and
// reports every symbolic link in it, which sessfs never makes there, and
// every mode but 0700 for folders and 0600 for files: sessions hold
// secrets.
func (c *fsck) checkEntries(s *Session) {
	filepath.WalkDir(s.dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			c.cannot(s.id, p, err)
		case d.Type()&fs.ModeSymlink != 0:
			c.report(s.id, p, linkProblem(p), nil)
		default:
			c.checkMode(p, d.IsDir(), s.id)
		}
		return nil
	})
}

func (c *fsck) checkMode(p string, dir bool, session string) {
	fi, err := os.Lstat(p)
	if err != nil {
		c.report(session, p, fmt.Sprintf("cannot stat: %v", err), nil)
		return
	}
	want := fs.FileMode(fileMode)
	if dir {
		want = dirMode
	}
	if got := fi.Mode().Perm(); got != want && fi.Mode()&fs.ModeSymlink == 0 {
		c.report(session, p, fmt.Sprintf("mode %04o, want %04o", got, want), func() error {
			return chmod(p, want)
		})
	}
}

// checkTemps finds temporary files of atomic replaces that a crash left.
func (c *fsck) checkTemps(s *Session, dir string) {
	ents, _ := readDir(dir)
	for _, e := range ents {
		if !isTemp(e.Name()) || !e.Type().IsRegular() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		c.note(s.id, p, "temporary file of an interrupted atomic write; readers ignore it; repair moves it to quarantine", func() error {
			return s.quarantineFile(p, "tmp")
		})
	}
}

// checkMeta checks meta.json; ok means it is usable for the next checks.
func (c *fsck) checkMeta(s *Session, links []nameLink) (backing.Meta, bool) {
	p := s.path("meta.json")
	data, err := readFile(p)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		c.cannot(s.id, p, err)
		return backing.Meta{}, false
	}
	var m backing.Meta
	what := "missing"
	if err == nil {
		m, err = backing.DecodeStoredMeta(bytes.ToValidUTF8(data, []byte("\uFFFD")))
		what = fmt.Sprintf("unreadable: %v", err)
	}
	if err != nil {
		c.report(s.id, p, what+"; rebuilt from the store (the old file goes to quarantine)", func() error {
			return c.rebuildMeta(s, links, data)
		})
		return m, false
	}
	// Written before meta.json had to be UTF-8: m already has U+FFFD for
	// each invalid byte, so the repairs below write it so too.
	if !utf8.Valid(data) {
		c.report(s.id, p, "not valid UTF-8; repair replaces each invalid byte with U+FFFD (the old file goes to quarantine)", func() error {
			if err := s.quarantine("meta.json", "utf8", data); err != nil {
				return err
			}
			return s.writeMeta(m)
		})
	}
	if m.ID != s.id {
		c.report(s.id, p, fmt.Sprintf("id is %q, the folder says %q", m.ID, s.id), func() error {
			m.ID = s.id
			return s.writeMeta(m)
		})
	}
	return m, true
}

func (c *fsck) rebuildMeta(s *Session, links []nameLink, old []byte) error {
	if old != nil {
		if err := s.quarantine("meta.json", "bad", old); err != nil {
			return err
		}
	}
	fi, err := stat(s.dir)
	if err != nil {
		return err
	}
	m := backing.Meta{ID: s.id, Created: fi.ModTime().UTC(), Updated: now(), State: backing.StateActive}
	m.Name = s.id
	for _, l := range links {
		m.Name, m.State = l.name, stateOf(l.dir)
		if l.dir == "trash" {
			m.Trashed = now()
		}
	}
	return s.writeMeta(m)
}

func (s *Session) writeMeta(m backing.Meta) error {
	data, err := backing.EncodeMeta(m)
	if err != nil {
		return err
	}
	return writeFileAtomic(s.path("meta.json"), data)
}

func stateOf(dir string) string {
	switch dir {
	case "archive":
		return backing.StateArchived
	case "trash":
		return backing.StateTrashed
	}
	return backing.StateActive
}

// checkNames wants each session linked exactly once, from the folder of its
// state, under the name in its meta.json.
func (c *fsck) checkNames(s *Session, m backing.Meta, links []nameLink) {
	if len(links) == 0 {
		c.report(s.id, s.dir, fmt.Sprintf("session %q has no name link (interrupted create?)", m.Name), func() error {
			return c.relink(s, m)
		})
		return
	}
	// Keep the link that matches meta.json's state; a crash between the
	// steps of a trash or restore leaves two, and the state is written
	// between them.
	keep := links[0]
	for _, l := range links {
		if stateOf(l.dir) == m.State {
			keep = l
		}
	}
	for _, l := range links {
		if l == keep {
			continue
		}
		p := c.st.path(l.dir, l.name)
		c.report(s.id, p, fmt.Sprintf("second link to the session (kept %s/%s)", keep.dir, keep.name), func() error {
			return remove(p)
		})
	}
	if st := stateOf(keep.dir); st != m.State {
		c.report(s.id, s.path("meta.json"), fmt.Sprintf("state %q but linked from %s/", m.State, keep.dir), func() error {
			m.State = st
			return s.writeMeta(m)
		})
	}
	if keep.dir != "trash" && keep.name != m.Name {
		c.report(s.id, s.path("meta.json"), fmt.Sprintf("name %q but linked as %q", m.Name, keep.name), func() error {
			m.Name = keep.name
			return s.writeMeta(m)
		})
	}
}

// relink gives an unlinked session back its name (or a generated one when
// that is taken) in the folder of its state.
func (c *fsck) relink(s *Session, m backing.Meta) error {
	dir, name := "names", m.Name
	switch m.State {
	case backing.StateArchived:
		dir = "archive"
	case backing.StateTrashed:
		dir, name = "trash", s.id
	}
	if dir != "trash" && (backing.ValidSessionName(name) != nil || c.st.nameFree(name) != nil) {
		name = s.id
		m.Name = name
		if err := s.writeMeta(m); err != nil {
			return err
		}
	}
	if err := symlink(linkTarget(s.id), c.st.path(dir, name)); err != nil {
		return err
	}
	return syncDir(c.st.path(dir))
}
