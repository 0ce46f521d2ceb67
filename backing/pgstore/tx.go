package pgstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/sessfs/sessfs/backing"
)

// querier is what a statement runs on: the pool or a transaction.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// changes is what a transaction changed, told to this process's
// subscribers once it committed.
type changes []backing.Change

// inTx runs fn in a transaction and, once it committed, tells this
// process's subscribers of the changes fn recorded.
func (st *Store) inTx(fn func(ctx context.Context, tx pgx.Tx, cs *changes) error) error {
	var cs changes
	err := st.write(func(ctx context.Context) error {
		return pgx.BeginFunc(ctx, st.pool, func(tx pgx.Tx) error {
			cs = cs[:0]
			return fn(ctx, tx, &cs)
		})
	})
	if err != nil {
		return err
	}
	st.publish(cs...)
	return nil
}

// record stores c in the change feed and notifies the other processes,
// in the caller's transaction: the change and its notice commit together.
func (st *Store) record(ctx context.Context, q querier, cs *changes, c backing.Change) error {
	var branch, n any
	if c.Branch != "" {
		branch = c.Branch
	}
	if c.Kind == backing.Appended {
		n = int64(c.Len)
	}
	_, err := q.Exec(ctx, `WITH c AS (
		INSERT INTO changes (session_id, kind, branch_id, len, origin, at)
		VALUES ($1, $2, $3, $4, $5, $6) RETURNING revision, origin)
		SELECT pg_notify('`+notifyChannel+`', `+notifyPayload+`) FROM c`,
		c.Session, int16(c.Kind), branch, n, st.origin, now())
	if err == nil {
		*cs = append(*cs, c)
	}
	return err
}

// lockSession takes the session's row lock in tx, for a change to the
// session: ErrNotFound if it is gone, ErrTrashed if it is in the trash
// (unless anyState). Changes to one session so run one at a time; an
// append, which locks its branch's row alone, is refused in the trash by
// the branch rows' copy of the state.
// It returns the session's state and its meta as stored.
func lockSession(ctx context.Context, tx pgx.Tx, id string, anyState bool) (state string, meta []byte, err error) {
	err = tx.QueryRow(ctx, `SELECT state, meta FROM sessions WHERE session_id = $1 FOR UPDATE`, id).Scan(&state, &meta)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil, fmt.Errorf("session id %s: %w", id, backing.ErrNotFound)
	}
	if err != nil {
		return "", nil, err
	}
	if state == backing.StateTrashed && !anyState {
		return state, meta, backing.ErrTrashed
	}
	return state, meta, nil
}

// lockMeta is lockSession's meta, decoded.
func lockMeta(ctx context.Context, tx pgx.Tx, id string, anyState bool) (backing.Meta, error) {
	_, raw, err := lockSession(ctx, tx, id, anyState)
	if err != nil {
		return backing.Meta{}, err
	}
	m, err := backing.DecodeStoredMeta(raw)
	if err != nil {
		return m, fmt.Errorf("session %s: %w", id, err)
	}
	return m, nil
}

// isUnique reports whether err is a unique violation of constraint (any,
// when constraint is "").
func isUnique(err error, constraint string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505" && (constraint == "" || pe.ConstraintName == constraint)
}
