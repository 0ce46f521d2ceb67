package pgstore

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/sessfs/sessfs/backing"
)

// What sessions spent, for the catalog's ByModel: backing.Tally's rule,
// applied to each branch's own messages in order (a Stream a branch, one
// Tally a session, so that a response seen in two branches counts once).
// It is derived, and kept in tables (spend, spend_keys, spend_marks) that
// any process catches up, reading only the messages that name a model or
// spend (messages.spends) and were not counted yet: the work of an append
// is not made longer by it, and no message is read twice.

// spendLock is the advisory lock class under which one process at a time
// catches up a session's spending.
const spendLock = 0x5e55

// catchUpSpend counts what the messages stored since the last catch-up,
// by any process, spent.
func (st *Store) catchUpSpend(ctx context.Context) error {
	rows, err := st.pool.Query(ctx, `SELECT DISTINCT b.session_id::text FROM branches b
		LEFT JOIN spend_marks k ON k.session_id = b.session_id AND k.branch_id = b.branch_id
		WHERE b.deleted_at IS NULL AND b.next_seq > coalesce(k.seq, 0)
			AND EXISTS (SELECT 1 FROM messages m WHERE m.session_id = b.session_id
				AND m.branch_id = b.branch_id AND m.spends AND m.seq >= coalesce(k.seq, 0))`)
	if err != nil {
		return err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := pgx.BeginFunc(ctx, st.pool, func(tx pgx.Tx) error {
			return catchUpSession(ctx, tx, id)
		}); err != nil {
			return err
		}
	}
	return nil
}

// counted is what a response (a Tally key) counted so far, as spend_keys
// keeps it.
type counted struct {
	model string
	u     backing.Usage
}

// catchUpSession counts what session id's branches stored since their
// marks, in tx.
func catchUpSession(ctx context.Context, tx pgx.Tx, id string) error {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, spendLock, id); err != nil {
		return err
	}
	var meta []byte
	if err := tx.QueryRow(ctx, `SELECT meta FROM sessions WHERE session_id = $1`, id).Scan(&meta); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return nil // purged meanwhile
		}
		return err
	}
	fallback := ""
	if m, err := backing.DecodeStoredMeta(meta); err == nil { // a meta it cannot read names no model
		fallback = m.Model
	}
	type branch struct {
		id         string
		mark, next int64
		model      *string
	}
	rows, err := tx.Query(ctx, `SELECT b.branch_id::text, coalesce(k.seq, 0), b.next_seq, k.model FROM branches b
		LEFT JOIN spend_marks k ON k.session_id = b.session_id AND k.branch_id = b.branch_id
		WHERE b.session_id = $1 AND b.deleted_at IS NULL AND b.next_seq > coalesce(k.seq, 0)
		ORDER BY b.parent_id IS NOT NULL, b.created, b.branch_id`, id)
	if err != nil {
		return err
	}
	var todo []branch
	for rows.Next() {
		var b branch
		if err := rows.Scan(&b.id, &b.mark, &b.next, &b.model); err != nil {
			rows.Close()
			return err
		}
		todo = append(todo, b)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	tally := backing.NewTally()
	keys := map[string]counted{}
	for _, b := range todo {
		model := fallback
		if b.model != nil {
			model = *b.model
		}
		stream := tally.Stream(model)
		spent := backing.ModelUsage{}
		rows, err := tx.Query(ctx, `SELECT raw FROM messages
			WHERE session_id = $1 AND branch_id = $2 AND spends AND seq >= $3 AND seq < $4 ORDER BY seq`,
			id, b.id, b.mark, b.next)
		if err != nil {
			return err
		}
		raws, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
		if err != nil {
			return err
		}
		for _, raw := range raws {
			_, _, key := backing.UsageOf(raw)
			if key != "" && !tally.Seeded(key) {
				c, err := seed(ctx, tx, id, key)
				if err != nil {
					return err
				}
				if c.model != "" {
					tally.Seed(key, c.model, c.u)
					keys[key] = c
				}
			}
			sp := stream.Add(raw)
			if key != "" {
				c := keys[key]
				if c.model == "" {
					c.model = sp.Model
				}
				c.u = c.u.Add(sp.Usage)
				keys[key] = c
			}
			if !sp.Usage.IsZero() {
				spent.Add(sp.Model, sp.Usage)
			}
		}
		for m, u := range spent {
			if _, err := tx.Exec(ctx, `INSERT INTO spend VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
				ON CONFLICT (session_id, branch_id, model) DO UPDATE SET input = spend.input + excluded.input,
					output = spend.output + excluded.output, cache_read = spend.cache_read + excluded.cache_read,
					cache_write = spend.cache_write + excluded.cache_write, reasoning = spend.reasoning + excluded.reasoning`,
				id, b.id, m, u.Input, u.Output, u.CacheRead, u.CacheWrite, u.Reasoning); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `INSERT INTO spend_marks VALUES ($1, $2, $3, $4)
			ON CONFLICT (session_id, branch_id) DO UPDATE SET seq = excluded.seq, model = excluded.model`,
			id, b.id, b.next, stream.Model()); err != nil {
			return err
		}
	}
	for key, c := range keys {
		u := c.u
		if _, err := tx.Exec(ctx, `INSERT INTO spend_keys VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
			ON CONFLICT (session_id, key) DO UPDATE SET input = excluded.input, output = excluded.output,
				cache_read = excluded.cache_read, cache_write = excluded.cache_write, reasoning = excluded.reasoning`,
			id, key, c.model, u.Input, u.Output, u.CacheRead, u.CacheWrite, u.Reasoning); err != nil {
			return err
		}
	}
	return nil
}

// seed is what key counted in session id before this catch-up.
func seed(ctx context.Context, tx pgx.Tx, id, key string) (counted, error) {
	var c counted
	err := tx.QueryRow(ctx, `SELECT model, input, output, cache_read, cache_write, reasoning FROM spend_keys
		WHERE session_id = $1 AND key = $2`, id, key).
		Scan(&c.model, &c.u.Input, &c.u.Output, &c.u.CacheRead, &c.u.CacheWrite, &c.u.Reasoning)
	if errors.Is(err, pgx.ErrNoRows) {
		return counted{}, nil
	}
	return c, err
}

// spent adds to the entries (at: their positions by id) what their live
// branches spent.
func (st *Store) spent(ctx context.Context, es []backing.Entry, at map[string]int) error {
	if len(es) == 0 {
		return nil
	}
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = e.ID
	}
	rows, err := st.pool.Query(ctx, `SELECT x.session_id::text, x.model, sum(x.input)::bigint, sum(x.output)::bigint,
			sum(x.cache_read)::bigint, sum(x.cache_write)::bigint, sum(x.reasoning)::bigint
		FROM spend x JOIN branches b ON b.session_id = x.session_id AND b.branch_id = x.branch_id AND b.deleted_at IS NULL
		WHERE x.session_id = ANY($1::uuid[]) GROUP BY 1, 2`, ids)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, model string
		var u backing.Usage
		if err := rows.Scan(&id, &model, &u.Input, &u.Output, &u.CacheRead, &u.CacheWrite, &u.Reasoning); err != nil {
			return err
		}
		if i, ok := at[id]; ok && !u.IsZero() {
			es[i].ByModel.Add(model, u)
		}
	}
	return rows.Err()
}
