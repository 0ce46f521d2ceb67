package filestore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sessfs/sessfs/backing"
	"golang.org/x/sys/unix"
)

// The namespace: names/<name> and archive/<name> are symlinks to a session
// folder, trash/<id> one per trashed session. Every change to them holds
// the store lock, so names stay unique across names/ and archive/.

func now() time.Time { return time.Now().UTC() }

func (st *Store) nsLock() (func(), error) {
	st.mu.Lock()
	if st.ns == nil {
		st.ns = &fileLock{path: st.path("lock")}
	}
	l := st.ns
	st.mu.Unlock()
	return l.lock()
}

func linkTarget(id string) string { return filepath.Join("..", "sessions", id) }

// linkOf finds the name link of session id in names/ or archive/, by
// reading every link there: for the rare repair that has nothing else to
// go by (a meta.json that cannot be read).
func (st *Store) linkOf(id string) (name, dir string, ok bool) {
	for _, d := range []string{"names", "archive"} {
		ents, _ := readDir(st.path(d))
		for _, e := range ents {
			if got, err := readLink(st.path(d, e.Name())); err == nil && got == id {
				return e.Name(), d, true
			}
		}
	}
	return "", "", false
}

// readLink resolves a name link to a session id.
func readLink(path string) (string, error) {
	t, err := readlink(path)
	if err != nil {
		return "", err
	}
	id, ok := linkID(t)
	if !ok {
		return "", fmt.Errorf("%w: %s points to %q, not a session", backing.ErrInvalid, path, t)
	}
	return id, nil
}

// linkID is the session id a name link's target t names; ok false if t
// names none.
func linkID(t string) (id string, ok bool) {
	id = filepath.Base(t)
	return id, t == linkTarget(id) && backing.ValidName(id) == nil
}

// lookupName finds the id of an active or archived session by name.
func (st *Store) lookupName(name string) (id, dir string, err error) {
	if backing.ValidName(name) != nil {
		return "", "", fmt.Errorf("session %q: %w", name, backing.ErrNotFound)
	}
	for _, d := range []string{"names", "archive"} {
		id, err := st.readNameLink(d, name)
		if err == nil {
			return id, d, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", "", err
		}
	}
	return "", "", fmt.Errorf("session %q: %w", name, backing.ErrNotFound)
}

// Lookup opens an active or archived session by name and says which.
func (st *Store) Lookup(name string) (backing.Session, string, error) {
	id, dir, err := st.lookupName(name)
	if err != nil {
		return nil, "", err
	}
	return st.handle(id), stateOf(dir), nil
}

// Session opens an active or archived session by name.
func (st *Store) Session(name string) (backing.Session, error) {
	id, _, err := st.lookupName(name)
	if err != nil {
		return nil, err
	}
	return st.handle(id), nil
}

// nameFree fails with ErrExist if an active or archived session has name.
func (st *Store) nameFree(name string) error {
	_, _, err := st.lookupName(name)
	switch {
	case err == nil:
		return fmt.Errorf("session %q: %w", name, backing.ErrExist)
	case errors.Is(err, backing.ErrNotFound):
		return nil
	default:
		return err
	}
}

// createSession makes a new session named name (a generated name when empty) with
// the given metadata; id, name, dates and state are set by the store (a
// creation time in the past is kept: an import).
func (st *Store) createSession(name string, m backing.Meta) (backing.Session, backing.Meta, error) {
	m, err := backing.NewSessionMeta(name, m, now())
	if err != nil {
		return nil, m, err
	}
	return st.makeNew(m)
}

// Receive makes a session of another store's under its id, name and
// dates (backing.Receiver), told to the change feed.
func (st *Store) Receive(m backing.Meta) (backing.Session, backing.Meta, error) {
	m, err := backing.ReceivedMeta(m, now())
	if err != nil {
		return nil, m, err
	}
	s, m, err := st.makeNew(m)
	if err != nil {
		return nil, m, err
	}
	st.publishNames(s.ID())
	return s, m, nil
}

var _ backing.Receiver = (*Store)(nil)

// makeNew makes the session of meta m, with an empty default branch. The
// session's folder is made whole under a temporary name, then renamed into
// place, then linked under its name: a failure or a crash leaves no
// half-made session, and an error leaves nothing at all.
func (st *Store) makeNew(m backing.Meta) (backing.Session, backing.Meta, error) {
	main, err := newBranch(backing.Branch{Name: backing.DefaultBranchName, Created: now()})
	if err != nil {
		return nil, m, err
	}
	unlock, err := st.nsLock()
	if err != nil {
		return nil, m, err
	}
	defer unlock()
	if err := st.nameFree(m.Name); err != nil {
		return nil, m, err
	}
	tmp, dir := st.path("sessions", tmpPrefix+m.ID), st.sessionDir(m.ID)
	if _, err := stat(dir); err == nil {
		// A received id (Receive) may be one the store has, in the trash too.
		return nil, m, fmt.Errorf("session id %s: %w", m.ID, backing.ErrExist)
	}
	// Under the namespace lock, a temporary folder of this id is what a
	// crash left of a creation never acknowledged (a copy tried again).
	removeAll(tmp)
	if err := makeSession(tmp, m, main); err != nil {
		removeAll(tmp) // nothing in it was ever acknowledged
		return nil, m, err
	}
	if err := rename(tmp, dir, unix.RENAME_NOREPLACE); err != nil {
		removeAll(tmp)
		return nil, m, err
	}
	if err := st.linkNew(m.ID, m.Name); err != nil {
		removeAll(dir) // no name ever led to it
		return nil, m, err
	}
	return st.handle(m.ID), m, nil
}

// linkNew makes a new session folder, just renamed into place, durable
// and gives it its name; if the name cannot be made durable, it goes.
func (st *Store) linkNew(id, name string) error {
	if err := syncDir(st.path("sessions")); err != nil {
		return err
	}
	link := st.path("names", name)
	if err := symlink(linkTarget(id), link); err != nil {
		return err
	}
	if err := syncDir(st.path("names")); err != nil {
		remove(link)
		return err
	}
	return nil
}

// makeSession writes a new session's folder at dir: its lock, meta.json
// and the default branch. No one sees dir before the caller renames it
// into place, so each file is written as it is, and all are made durable
// at the end, before that rename: the data of the two that have any,
// then the three folders' entries (5 fsyncs, where writing each file
// durably took 8, a third of the cost of importing a short session).
func makeSession(dir string, m backing.Meta, main backing.Branch) error {
	branches, logs := filepath.Join(dir, "branches"), filepath.Join(dir, "logs")
	for _, d := range []string{dir, branches, logs} {
		if err := mkdir(d, dirMode); err != nil {
			return err
		}
	}
	data, err := backing.EncodeMeta(m)
	if err != nil {
		return err
	}
	meta, branch := filepath.Join(dir, "meta.json"), filepath.Join(branches, main.ID+".json")
	for _, f := range []struct {
		path string
		data []byte
	}{
		{filepath.Join(dir, "lock"), nil},
		{meta, data},
		{filepath.Join(logs, main.ID+".jsonl"), nil},
		{branch, encodeBranch(main)},
	} {
		if err := writeNew(f.path, f.data, len(f.data) > 0); err != nil {
			return err
		}
	}
	for _, d := range []string{logs, branches, dir} {
		if err := syncDir(d); err != nil {
			return err
		}
	}
	return nil
}

// changeNames makes a change to the namespace (step: links made, moved or
// removed, which names trust) and the matching change to meta.json, in the
// order that keeps an error true: meta.json first, which needs room on the
// disk and so is what fails on a full one; if step then fails, meta.json
// gets its old name, state and trash time back. Should that fail too, the
// links still say what is true and fsck brings meta.json in line.
func (st *Store) changeNames(id string, change func(*backing.Meta), step func() error) error {
	s := st.handle(id)
	var old backing.Meta
	if _, err := s.updateNamesMeta(func(m *backing.Meta) error {
		old = *m
		change(m)
		return nil
	}); err != nil {
		return err
	}
	if err := step(); err != nil {
		s.updateNamesMeta(func(m *backing.Meta) error {
			m.Name, m.State, m.Trashed = old.Name, old.State, old.Trashed
			return nil
		})
		return err
	}
	return nil
}

// renameSession gives a session a new name; the session's folder does not move.
func (st *Store) renameSession(old, name string) error {
	if err := backing.ValidSessionName(name); err != nil {
		return err
	}
	unlock, err := st.nsLock()
	if err != nil {
		return err
	}
	defer unlock()
	id, dir, err := st.lookupName(old)
	if err != nil {
		return err
	}
	if old == name {
		return nil
	}
	if err := st.nameFree(name); err != nil {
		return err
	}
	return st.changeNames(id, func(m *backing.Meta) { m.Name = name }, func() error {
		// RENAME_NOREPLACE: never over a name another process just took.
		if err := rename(st.path(dir, old), st.path(dir, name), unix.RENAME_NOREPLACE); err != nil {
			if errors.Is(err, unix.EEXIST) {
				return fmt.Errorf("session %q: %w", name, backing.ErrExist)
			}
			return fmt.Errorf("rename session %q: %w", old, err)
		}
		return syncDir(st.path(dir))
	})
}

// trash moves a session to the trash: its name is freed, nothing is
// deleted, and Restore brings it back.
func (st *Store) trash(name string) error {
	unlock, err := st.nsLock()
	if err != nil {
		return err
	}
	defer unlock()
	id, dir, err := st.lookupName(name)
	if err != nil {
		return err
	}
	trashed := func(m *backing.Meta) { m.State, m.Trashed = backing.StateTrashed, now() }
	return st.changeNames(id, trashed, func() error {
		// The trash link first: from it on the session is read-only.
		tl := st.path("trash", id)
		if err := symlink(linkTarget(id), tl); err != nil && !errors.Is(err, os.ErrExist) {
			return err
		}
		err := syncDir(st.path("trash"))
		if err == nil {
			err = remove(st.path(dir, name))
		}
		if err != nil {
			remove(tl)
			return err
		}
		return syncDir(st.path(dir))
	})
}

// restore brings a session back from the trash, by id or by the name it had,
// under that name or under as when given. It returns the name.
func (st *Store) restore(nameOrID, as string) (string, error) {
	unlock, err := st.nsLock()
	if err != nil {
		return "", err
	}
	defer unlock()
	id, err := st.findTrashed(nameOrID)
	if err != nil {
		return "", err
	}
	m, err := st.handle(id).Meta()
	if err != nil {
		return "", err
	}
	name := m.Name
	if as != "" {
		name = as
	}
	if err := backing.ValidSessionName(name); err != nil {
		return "", err
	}
	if err := st.nameFree(name); err != nil {
		return "", fmt.Errorf("%w; restore it under another name", err)
	}
	restored := func(m *backing.Meta) { m.Name, m.State, m.Trashed = name, backing.StateActive, time.Time{} }
	return name, st.changeNames(id, restored, func() error {
		link := st.path("names", name)
		if err := symlink(linkTarget(id), link); err != nil {
			return err
		}
		err := syncDir(st.path("names"))
		if err == nil {
			// The trash link goes last: until then the session is read-only.
			err = remove(st.path("trash", id))
		}
		if err != nil {
			remove(link)
			return err
		}
		return syncDir(st.path("trash"))
	})
}

func (st *Store) findTrashed(nameOrID string) (string, error) {
	if _, err := readLink(st.path("trash", nameOrID)); err == nil && backing.ValidName(nameOrID) == nil {
		return nameOrID, nil
	}
	ents, err := readDir(st.path("trash"))
	if err != nil {
		return "", err
	}
	var found []string
	for _, e := range ents {
		m, err := st.handle(e.Name()).Meta()
		if err == nil && m.Name == nameOrID {
			found = append(found, e.Name())
		}
	}
	switch len(found) {
	case 0:
		return "", backing.Sentencef(backing.ErrNotFound, "no session %q in the trash", nameOrID)
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("%w: %d sessions named %q in the trash; restore one by id: %s",
		backing.ErrExist, len(found), nameOrID, strings.Join(found, ", "))
}

// archive moves a session out of the default listing; it keeps its name
// and can still be opened, read and written.
func (st *Store) archive(name string) error {
	return st.moveName(name, "names", "archive", backing.StateArchived)
}

// unarchive brings an archived session back to the default listing.
func (st *Store) unarchive(name string) error {
	return st.moveName(name, "archive", "names", backing.StateActive)
}

func (st *Store) moveName(name, from, to, state string) error {
	unlock, err := st.nsLock()
	if err != nil {
		return err
	}
	defer unlock()
	id, dir, err := st.lookupName(name)
	if err != nil {
		return err
	}
	if dir != from {
		return backing.Sentencef(backing.ErrInvalid, "session %q is already %s", name, state)
	}
	return st.changeNames(id, func(m *backing.Meta) { m.State = state }, func() error {
		if err := rename(st.path(from, name), st.path(to, name), unix.RENAME_NOREPLACE); err != nil {
			return fmt.Errorf("move session %q to %s: %w", name, to, err)
		}
		if err := syncDir(st.path(from)); err != nil {
			return err
		}
		return syncDir(st.path(to))
	})
}

// purge deletes a trashed session for good. Only Sweep calls it.
func (st *Store) purge(id string) error {
	if err := removeAll(st.sessionDir(id)); err != nil {
		return err
	}
	if err := remove(st.path("trash", id)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := st.dropKept(id); err != nil {
		return err
	}
	st.mu.Lock()
	delete(st.sessions, id)
	st.mu.Unlock()
	return syncDir(st.path("trash"))
}
