package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/sessfs/sessfs/backing"
)

// The namespace: the names table holds the active and archived sessions'
// names, unique by its primary key, so that two writers on two machines
// never give one name twice. Each change to it is one transaction with
// the session's meta (which names the session and its state) and the
// branch rows' copy of the trash state.

// Create makes a session named name ("" for a generated name) with m's
// fields, and its default branch.
func (st *Store) Create(name string, m backing.Meta) (backing.Session, backing.Meta, error) {
	m, err := backing.NewSessionMeta(name, m, now())
	if err != nil {
		return nil, m, err
	}
	return st.insertSession(m)
}

// Receive makes a session of another store's under its id, name and
// dates (backing.Receiver).
func (st *Store) Receive(m backing.Meta) (backing.Session, backing.Meta, error) {
	m, err := backing.ReceivedMeta(m, now())
	if err != nil {
		return nil, m, err
	}
	return st.insertSession(m)
}

var _ backing.Receiver = (*Store)(nil)

// insertSession adds the session of meta m, with an empty default branch,
// in one transaction: the name's and the id's primary keys refuse a name
// or an id the store has (a received id may be in the trash).
func (st *Store) insertSession(m backing.Meta) (backing.Session, backing.Meta, error) {
	t := now()
	data, err := backing.EncodeMeta(m)
	if err != nil {
		return nil, m, err
	}
	main, err := uuid.NewV7()
	if err != nil {
		return nil, m, err
	}
	err = st.inTx(func(ctx context.Context, tx pgx.Tx, cs *changes) error {
		if _, err := tx.Exec(ctx, `INSERT INTO names (name, session_id) VALUES ($1, $2)`, m.Name, m.ID); err != nil {
			if isUnique(err, "names_pkey") {
				return fmt.Errorf("session %q: %w", m.Name, backing.ErrExist)
			}
			if isUnique(err, "names_session_id_key") {
				return fmt.Errorf("session id %s: %w", m.ID, backing.ErrExist)
			}
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO sessions (session_id, name, state, meta, meta_time, created,
				project, agent, title_tsv)
			VALUES ($1, $2, 'active', $3, $4, $5, $6, $7, $8::text::tsvector)`, m.ID, m.Name, data, t, m.Created,
			backing.ProjectOf(m), backing.AgentOf(m), titleVector(m, false)); err != nil {
			if isUnique(err, "sessions_pkey") {
				return fmt.Errorf("session id %s: %w", m.ID, backing.ErrExist)
			}
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO branches (session_id, branch_id, name, created, mod_time)
			VALUES ($1, $2, $3, $4, $4)`, m.ID, main.String(), backing.DefaultBranchName, t); err != nil {
			return err
		}
		return st.record(ctx, tx, cs, backing.Change{Kind: backing.NamesChanged, Session: m.ID})
	})
	if err != nil {
		return nil, m, err
	}
	return st.handle(m.ID), m, nil
}

// changeName runs a change of the namespace for the session named name:
// step changes the names table (given the session's id and whether it is
// archived) and the meta (m), in one transaction that holds the name's
// and the session's row locks.
func (st *Store) changeName(name string, step func(ctx context.Context, tx pgx.Tx, id string, archived bool, m *backing.Meta) error) error {
	if backing.ValidName(name) != nil {
		return fmt.Errorf("session %q: %w", name, backing.ErrNotFound)
	}
	return st.inTx(func(ctx context.Context, tx pgx.Tx, cs *changes) error {
		var id string
		var archived bool
		err := tx.QueryRow(ctx, `SELECT session_id::text, archived FROM names WHERE name = $1 FOR UPDATE`, name).Scan(&id, &archived)
		if err != nil {
			return errNoRows(err, fmt.Sprintf("session %q", name))
		}
		m, err := lockMeta(ctx, tx, id, true)
		if err != nil {
			return err
		}
		if err := step(ctx, tx, id, archived, &m); err != nil {
			return err
		}
		if err := putMeta(ctx, tx, id, m); err != nil {
			return err
		}
		return st.record(ctx, tx, cs, backing.Change{Kind: backing.NamesChanged, Session: id})
	})
}

// Rename gives an active or archived session a new name, never one in use.
func (st *Store) Rename(old, name string) error {
	if err := backing.ValidSessionName(name); err != nil {
		return err
	}
	return st.changeName(old, func(ctx context.Context, tx pgx.Tx, id string, _ bool, m *backing.Meta) error {
		if old == name {
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE names SET name = $2 WHERE name = $1`, old, name); err != nil {
			if isUnique(err, "names_pkey") {
				return fmt.Errorf("session %q: %w", name, backing.ErrExist)
			}
			return err
		}
		m.Name = name
		return nil
	})
}

// Archive moves an active session to the archive.
func (st *Store) Archive(name string) error { return st.setArchived(name, true) }

// Unarchive brings an archived session back.
func (st *Store) Unarchive(name string) error { return st.setArchived(name, false) }

func (st *Store) setArchived(name string, archive bool) error {
	state := backing.StateActive
	if archive {
		state = backing.StateArchived
	}
	return st.changeName(name, func(ctx context.Context, tx pgx.Tx, id string, archived bool, m *backing.Meta) error {
		if archived == archive {
			return backing.Sentencef(backing.ErrInvalid, "session %q is already %s", name, state)
		}
		if _, err := tx.Exec(ctx, `UPDATE names SET archived = $2 WHERE name = $1`, name, archive); err != nil {
			return err
		}
		m.State = state
		return nil
	})
}

// Trash moves an active or archived session to the trash: its name is
// freed and it is read-only until restored.
func (st *Store) Trash(name string) error {
	return st.changeName(name, func(ctx context.Context, tx pgx.Tx, id string, _ bool, m *backing.Meta) error {
		if _, err := tx.Exec(ctx, `DELETE FROM names WHERE name = $1`, name); err != nil {
			return err
		}
		// Every branch row, so that an append (which locks its branch's
		// row alone) is refused from here on.
		if _, err := tx.Exec(ctx, `UPDATE branches SET trashed = true WHERE session_id = $1`, id); err != nil {
			return err
		}
		m.State, m.Trashed = backing.StateTrashed, now()
		return nil
	})
}

// Restore brings a session back from the trash by id or former name, as
// as or its former name, and returns the name.
func (st *Store) Restore(nameOrID, as string) (string, error) {
	var name string
	err := st.inTx(func(ctx context.Context, tx pgx.Tx, cs *changes) error {
		id, err := findTrashed(ctx, tx, nameOrID)
		if err != nil {
			return err
		}
		m, err := lockMeta(ctx, tx, id, true)
		if err != nil {
			return err
		}
		if m.State != backing.StateTrashed {
			return backing.Sentencef(backing.ErrNotFound, "no session %q in the trash", nameOrID)
		}
		name = m.Name
		if as != "" {
			name = as
		}
		if err := backing.ValidSessionName(name); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO names (name, session_id) VALUES ($1, $2)`, name, id); err != nil {
			if isUnique(err, "names_pkey") {
				return fmt.Errorf("session %q: %w; restore it under another name", name, backing.ErrExist)
			}
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE branches SET trashed = false WHERE session_id = $1`, id); err != nil {
			return err
		}
		m.Name, m.State, m.Trashed = name, backing.StateActive, time.Time{}
		if err := putMeta(ctx, tx, id, m); err != nil {
			return err
		}
		return st.record(ctx, tx, cs, backing.Change{Kind: backing.NamesChanged, Session: id})
	})
	return name, err
}

// findTrashed finds a session in the trash by id, or by the name it had.
func findTrashed(ctx context.Context, tx pgx.Tx, nameOrID string) (string, error) {
	if validID(nameOrID) {
		var id string
		err := tx.QueryRow(ctx, `SELECT session_id::text FROM sessions WHERE session_id = $1 AND state = 'trashed'`, nameOrID).Scan(&id)
		if err == nil {
			return id, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return "", err
		}
	}
	rows, err := tx.Query(ctx, `SELECT session_id::text FROM sessions WHERE state = 'trashed' AND name = $1`, nameOrID)
	if err != nil {
		return "", err
	}
	found, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return "", err
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
