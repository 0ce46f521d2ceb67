package pgstore

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sessfs/sessfs/backing"
)

// Names lists the active sessions' names, sorted by their bytes (COLLATE
// "C": the order of Go's strings, whatever the database's locale).
func (st *Store) Names() ([]string, error) {
	return st.strings(`SELECT name FROM names WHERE NOT archived ORDER BY name COLLATE "C"`)
}

// ArchivedNames lists the archived sessions' names, sorted.
func (st *Store) ArchivedNames() ([]string, error) {
	return st.strings(`SELECT name FROM names WHERE archived ORDER BY name COLLATE "C"`)
}

// TrashedIDs lists the ids of the sessions in the trash.
func (st *Store) TrashedIDs() ([]string, error) {
	return st.strings(`SELECT session_id::text FROM sessions WHERE state = 'trashed' ORDER BY session_id`)
}

func (st *Store) strings(sql string, args ...any) ([]string, error) {
	var out []string
	err := st.read(func(ctx context.Context) error {
		rows, err := st.pool.Query(ctx, sql, args...)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	if out == nil {
		out = []string{}
	}
	return out, err
}

// NamesChanged is when a name last came or went, by any writer; the zero
// time if none ever did or the database cannot say.
func (st *Store) NamesChanged() time.Time {
	var t time.Time
	err := st.read(func(ctx context.Context) error {
		return st.pool.QueryRow(ctx, `SELECT at FROM changes WHERE kind = 4 ORDER BY revision DESC LIMIT 1`).Scan(&t)
	})
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		st.logf("names changed: %v", err)
	}
	return t
}

// lookupName finds an active or archived session by name.
func (st *Store) lookupName(name string) (id, state string, err error) {
	if backing.ValidName(name) != nil {
		return "", "", fmt.Errorf("session %q: %w", name, backing.ErrNotFound)
	}
	var archived bool
	err = st.read(func(ctx context.Context) error {
		return st.pool.QueryRow(ctx, `SELECT session_id::text, archived FROM names WHERE name = $1`, name).Scan(&id, &archived)
	})
	if err != nil {
		return "", "", errNoRows(err, fmt.Sprintf("session %q", name))
	}
	state = backing.StateActive
	if archived {
		state = backing.StateArchived
	}
	return id, state, nil
}

// Session opens an active or archived session by name.
func (st *Store) Session(name string) (backing.Session, error) {
	s, _, err := st.Lookup(name)
	return s, err
}

// Lookup opens an active or archived session by name and says which.
func (st *Store) Lookup(name string) (backing.Session, string, error) {
	id, state, err := st.lookupName(name)
	if err != nil {
		return nil, "", err
	}
	return st.handle(id), state, nil
}

// SessionByID opens a session by id, in the trash too.
func (st *Store) SessionByID(id string) (backing.Session, error) {
	if !validID(id) {
		return nil, fmt.Errorf("session id %q: %w", id, backing.ErrNotFound)
	}
	var one int
	if err := st.read(func(ctx context.Context) error {
		return st.pool.QueryRow(ctx, `SELECT 1 FROM sessions WHERE session_id = $1`, id).Scan(&one)
	}); err != nil {
		return nil, errNoRows(err, "session id "+id)
	}
	return st.handle(id), nil
}

// List reads every active session's meta and counts (the archived and
// trashed ones too when all is set) in one query, oldest activity first:
// the counts are the default branch row's, no message is read.
func (st *Store) List(all bool) ([]backing.SessionInfo, error) {
	var out []backing.SessionInfo
	err := st.read(func(ctx context.Context) (err error) {
		out, err = st.list(ctx, all)
		return err
	})
	return out, err
}

func (st *Store) list(ctx context.Context, all bool) ([]backing.SessionInfo, error) {
	rows, err := st.pool.Query(ctx, `SELECT s.session_id::text, s.name, s.state, s.meta, s.created,
			coalesce(b.next_seq - b.events, 0),
			(SELECT max(x.mod_time) FROM branches x WHERE x.session_id = s.session_id AND x.deleted_at IS NULL)
		FROM sessions s
		LEFT JOIN branches b ON b.session_id = s.session_id AND b.parent_id IS NULL AND b.deleted_at IS NULL
		WHERE $1 OR s.state = 'active'`, all)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []backing.SessionInfo
	for rows.Next() {
		var id, name, state string
		var meta []byte
		var created time.Time
		var visible int64
		var last *time.Time
		if err := rows.Scan(&id, &name, &state, &meta, &created, &visible, &last); err != nil {
			return nil, err
		}
		m, err := backing.DecodeStoredMeta(meta)
		info := backing.SessionInfo{Meta: m, Messages: int(visible), LastActivity: created}
		if err != nil {
			info.Err = fmt.Errorf("session %s: %w", id, err)
		}
		info.ID, info.Name, info.State = id, name, state // the row is the truth for these
		if last != nil && last.After(info.LastActivity) {
			info.LastActivity = *last
		}
		out = append(out, info)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].LastActivity.Equal(out[j].LastActivity) {
			return out[i].LastActivity.Before(out[j].LastActivity)
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// logf reports what no call returns.
func (st *Store) logf(format string, args ...any) {
	if st.opts.Logf != nil {
		st.opts.Logf(format, args...)
	}
}
