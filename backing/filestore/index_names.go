package filestore

import (
	"database/sql"
	"maps"
	"slices"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// place is where a session's name link is: its name and state.
type place struct{ name, state string }

// places reads every name link: id → name and state. A trashed session's
// link is named by its id; its name is the one its meta kept.
func (st *Store) places() (map[string]place, error) {
	out := map[string]place{}
	for _, d := range []struct{ dir, state string }{
		{"names", backing.StateActive}, {"archive", backing.StateArchived}, {"trash", backing.StateTrashed},
	} {
		names, err := st.readNames(d.dir)
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			id, err := readLink(st.path(d.dir, name))
			if err != nil {
				continue // fsck reports a bad link; the index leaves it out
			}
			if d.state == backing.StateTrashed {
				name = ""
			}
			out[id] = place{name, d.state}
		}
	}
	return out, nil
}

// racyStamp is how recent a names folder's time may be and still be
// trusted as a stamp: a change within the clock's granularity of the last
// one may leave the same time, so a stamp that recent is looked at again
// next time (the way git treats racy index entries).
const racyStamp = 100 * time.Millisecond

// reconcileNames brings the catalog's names and states in step with the
// names folders, when they changed since the index last looked: sessions
// created elsewhere are indexed, those deleted for good are forgotten.
func (w *writer) reconcileNames() error {
	stamp := w.x.st.NamesChanged()
	if w.x.namesFresh(w.tx, stamp) {
		return nil
	}
	places, err := w.x.st.places()
	if err != nil {
		return err
	}
	if err := w.applyPlaces(places); err != nil {
		return err
	}
	return w.setNamesStamp(stamp)
}

// namesFresh reports whether the index saw the names folders as of stamp.
// It reads through q: the writer's transaction within one, as the index
// has one connection.
func (x *index) namesFresh(q interface {
	QueryRow(string, ...any) *sql.Row
}, stamp time.Time) bool {
	if !x.namesStamp.IsZero() && stamp.Equal(x.namesStamp) {
		return true
	}
	var stored int64
	q.QueryRow(`SELECT value FROM info WHERE key = 'names'`).Scan(&stored)
	return stored != 0 && stored == stamp.UnixNano()
}

// setNamesStamp records that the index saw the names folders as of stamp,
// unless stamp is too recent to be told from a later change.
func (w *writer) setNamesStamp(stamp time.Time) error {
	w.x.namesStamp = time.Time{}
	if time.Since(stamp) < racyStamp {
		return nil
	}
	_, err := w.exec(`INSERT OR REPLACE INTO info VALUES ('names', ?)`, stamp.UnixNano())
	if err == nil {
		w.x.namesStamp = stamp
	}
	return err
}

// applyPlaces renames, moves and forgets catalog rows as places say, and
// indexes the sessions it does not have.
func (w *writer) applyPlaces(places map[string]place) error {
	rows, err := w.query(`SELECT id, name, state FROM sessions`)
	if err != nil {
		return err
	}
	known := map[string]place{}
	for rows.Next() {
		var id string
		var p place
		if err := rows.Scan(&id, &p.name, &p.state); err != nil {
			rows.Close()
			return err
		}
		known[id] = p
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for id := range known {
		if _, ok := places[id]; !ok {
			if err := w.forget(id); err != nil {
				return err
			}
		}
	}
	for id, p := range places {
		k, ok := known[id]
		switch {
		case !ok:
			if err := w.catchUp(id, p); err != nil {
				return err
			}
		case k.state != p.state || (p.name != "" && k.name != p.name):
			name := p.name
			if name == "" {
				name = k.name
			}
			if _, err := w.exec(`UPDATE sessions SET name = ?, state = ? WHERE id = ?`, name, p.state, id); err != nil {
				return err
			}
		}
	}
	return nil
}

// build indexes every session of the store, calling progress as it goes,
// and marks the index complete. A build cut short resumes where it
// stopped: its commits keep their checkpoints.
func (w *writer) build(progress func(done, total int)) error {
	stamp := w.x.st.NamesChanged()
	places, err := w.x.st.places()
	if err != nil {
		return err
	}
	// Oldest first (ids are UUID v7, in order of creation), so that rows
	// are numbered about as they were written (index_search.go).
	ids := slices.Sorted(maps.Keys(places))
	ahead := w.x.st.readAhead(ids)
	defer ahead.close()
	done := 0
	for _, id := range ids {
		w.ahead = ahead.next()
		err := w.catchUp(id, places[id])
		w.ahead = nil
		if err != nil {
			return err
		}
		done++
		if progress != nil {
			progress(done, len(places))
		}
	}
	if err := w.applyPlaces(places); err != nil { // forget what is gone
		return err
	}
	if _, err := w.exec(`INSERT OR REPLACE INTO info VALUES ('complete', 'yes')`); err != nil {
		return err
	}
	if err := w.setNamesStamp(stamp); err != nil {
		return err
	}
	return w.catchUpMarked()
}
