package filestore

import (
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
func (x *index) reconcileNames() error {
	stamp := x.st.NamesChanged()
	if !x.namesStamp.IsZero() && stamp.Equal(x.namesStamp) {
		return nil
	}
	var stored int64
	x.db.QueryRow(`SELECT value FROM info WHERE key = 'names'`).Scan(&stored)
	if stored != 0 && stored == stamp.UnixNano() {
		x.namesStamp = stamp
		return nil
	}
	places, err := x.st.places()
	if err != nil {
		return err
	}
	if err := x.applyPlaces(places); err != nil {
		return err
	}
	if time.Since(stamp) < racyStamp {
		return nil
	}
	x.namesStamp = stamp
	_, err = x.db.Exec(`INSERT OR REPLACE INTO info VALUES ('names', ?)`, stamp.UnixNano())
	return err
}

// applyPlaces renames, moves and forgets catalog rows as places say, and
// indexes the sessions it does not have.
func (x *index) applyPlaces(places map[string]place) error {
	rows, err := x.db.Query(`SELECT id, name, state FROM sessions`)
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
			if err := x.forget(id); err != nil {
				return err
			}
		}
	}
	for id, p := range places {
		k, ok := known[id]
		switch {
		case !ok:
			if err := x.catchUp(id, p); err != nil {
				return err
			}
		case k.state != p.state || (p.name != "" && k.name != p.name):
			name := p.name
			if name == "" {
				name = k.name
			}
			if _, err := x.db.Exec(`UPDATE sessions SET name = ?, state = ? WHERE id = ?`, name, p.state, id); err != nil {
				return err
			}
		}
	}
	return nil
}

// build indexes every session of the store, calling progress as it goes,
// and marks the index complete. A build cut short resumes where it
// stopped: each session's checkpoints are committed with its rows.
func (x *index) build(progress func(done, total int)) error {
	places, err := x.st.places()
	if err != nil {
		return err
	}
	stamp := x.st.NamesChanged()
	done := 0
	for id, p := range places {
		if err := x.catchUp(id, p); err != nil {
			return err
		}
		done++
		if progress != nil {
			progress(done, len(places))
		}
	}
	if err := x.applyPlaces(places); err != nil { // forget what is gone
		return err
	}
	if _, err := x.db.Exec(`INSERT OR REPLACE INTO info VALUES ('complete', 'yes')`); err != nil {
		return err
	}
	x.namesStamp = time.Time{}
	if time.Since(stamp) >= racyStamp {
		x.namesStamp = stamp
		x.db.Exec(`INSERT OR REPLACE INTO info VALUES ('names', ?)`, stamp.UnixNano())
	}
	return x.catchUpMarked()
}
