package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/sessfs/sessfs/backing"
)

// reindexChunk is how many messages Reindex derives again per statement.
const reindexChunk = 1000

// Reindex derives again, from the messages and metas as stored, what
// search and the catalog read (the words, roles, times and usage flags of
// the messages, what the sessions spent, their projects, agents and
// titles), a session at a time: what a newer sessfs derives differently
// (a rule of backing changed) is brought in line with it. progress, when
// not nil, is called as sessions are done.
func (st *Store) Reindex(progress func(done, total int)) error {
	ctx := context.Background()
	rows, err := st.pool.Query(ctx, `SELECT session_id::text FROM sessions ORDER BY created, session_id`)
	if err != nil {
		return err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	for i, id := range ids {
		if err := st.reindexSession(ctx, id); err != nil {
			return err
		}
		if progress != nil {
			progress(i+1, len(ids))
		}
	}
	return nil
}

// reindexSession derives session id's columns again, in one transaction
// (each chunk of messages bounded by the store's timeout).
func (st *Store) reindexSession(ctx context.Context, id string) error {
	return pgx.BeginFunc(ctx, st.pool, func(tx pgx.Tx) error {
		for _, table := range []string{"spend", "spend_keys", "spend_marks"} {
			if _, err := tx.Exec(ctx, `DELETE FROM `+table+` WHERE session_id = $1`, id); err != nil {
				return err
			}
		}
		lastBranch, lastSeq := "00000000-0000-0000-0000-000000000000", int64(-1)
		for {
			cctx, cancel := context.WithTimeout(ctx, st.opts.Timeout)
			n, err := reindexChunkOf(cctx, tx, id, &lastBranch, &lastSeq)
			cancel()
			if err != nil {
				return err
			}
			if n < reindexChunk {
				break
			}
		}
		var meta []byte
		if err := tx.QueryRow(ctx, `SELECT meta FROM sessions WHERE session_id = $1`, id).Scan(&meta); err != nil {
			return err
		}
		m, err := backing.DecodeStoredMeta(meta)
		if err != nil {
			return nil // fsck's to report; search finds its messages still
		}
		auto, err := autoTitled(ctx, tx, id, m.Title)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE sessions SET project = $2, agent = $3, title_tsv = $4::text::tsvector
			WHERE session_id = $1`, id, backing.ProjectOf(m), backing.AgentOf(m), titleVector(m, auto))
		return err
	})
}

// reindexChunkOf derives the columns of the next messages of session id
// after (branch, seq), moves those on, and says how many it did.
func reindexChunkOf(ctx context.Context, tx pgx.Tx, id string, branch *string, seq *int64) (int, error) {
	rows, err := tx.Query(ctx, `SELECT branch_id::text, seq, raw FROM messages
		WHERE session_id = $1 AND (branch_id, seq) > ($2::uuid, $3) ORDER BY branch_id, seq LIMIT $4`,
		id, *branch, *seq, reindexChunk)
	if err != nil {
		return 0, err
	}
	var branches []string
	var seqs []int64
	var f fields
	for rows.Next() {
		var b string
		var s int64
		var raw []byte
		if err := rows.Scan(&b, &s, &raw); err != nil {
			rows.Close()
			return 0, err
		}
		branches, seqs = append(branches, b), append(seqs, s)
		f.add(raw, "", false)
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if len(seqs) == 0 {
		return 0, nil
	}
	*branch, *seq = branches[len(branches)-1], seqs[len(seqs)-1]
	_, err = tx.Exec(ctx, `UPDATE messages m SET role = u.role, ts = u.ts, tsv = u.tsv::tsvector, spends = u.spends
		FROM unnest($2::uuid[], $3::bigint[], $4::text[], $5::timestamptz[], $6::text[], $7::boolean[])
			AS u(branch_id, seq, role, ts, tsv, spends)
		WHERE m.session_id = $1 AND m.branch_id = u.branch_id AND m.seq = u.seq`,
		id, branches, seqs, f.role, f.ts, f.tsv, f.spends)
	return len(seqs), err
}
