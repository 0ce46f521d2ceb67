package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/sessfs/sessfs/backing"
)

// fsck: what the database itself cannot promise of the store (its
// constraints keep the rest): the counts a branch row keeps of its
// messages, the ancestry of branches, and the namespace's agreement with
// each session's state and meta. A count or a copied state is repaired
// from what it counts or copies; a gap in a branch's messages, a branch
// whose parent is gone or a meta that is not one is damage a person
// looks at (ErrDamaged on reads).

// check is one kind of problem: a query that lists its cases (session id,
// what is wrong) and, when it can be repaired without losing a byte, the
// statement that repairs them all.
type check struct {
	what   string
	find   string
	repair string
}

var checks = []check{
	// First: the counts below sum these lengths.
	{
		what: "branch %s: %s",
		find: `SELECT m.session_id::text, m.branch_id::text, format('message %s: a stored length of %s, not %s', m.seq, m.raw_len, octet_length(m.raw))
			FROM messages m WHERE m.raw_len <> octet_length(m.raw)`,
		repair: `UPDATE messages SET raw_len = octet_length(raw) WHERE raw_len <> octet_length(raw)`,
	},
	{
		what: "branch %s: its row counts %s",
		find: `SELECT b.session_id::text, b.branch_id::text,
				format('%s messages, %s events, %s bytes; it has %s, %s, %s', b.next_seq, b.events, b.bytes, n.count, n.events, n.bytes)
			FROM branches b
			JOIN LATERAL (SELECT count(*) AS count, coalesce(max(m.seq) + 1, 0) AS next,
					count(*) FILTER (WHERE m.kind & 2 <> 0) AS events, coalesce(sum(m.raw_len), 0) AS bytes
				FROM messages m WHERE m.session_id = b.session_id AND m.branch_id = b.branch_id) n ON true
			WHERE n.count = n.next AND (b.next_seq, b.events, b.bytes) <> (n.count, n.events, n.bytes)`,
		repair: `UPDATE branches b SET next_seq = n.count, events = n.events, bytes = n.bytes
			FROM (SELECT session_id, branch_id, count(*) AS count, coalesce(max(seq) + 1, 0) AS next,
					count(*) FILTER (WHERE kind & 2 <> 0) AS events, coalesce(sum(raw_len), 0) AS bytes
				FROM messages GROUP BY session_id, branch_id) n
			WHERE n.session_id = b.session_id AND n.branch_id = b.branch_id AND n.count = n.next
				AND (b.next_seq, b.events, b.bytes) <> (n.count, n.events, n.bytes)`,
	},
	{
		what: "branch %s: %s",
		find: `SELECT m.session_id::text, m.branch_id::text,
				format('messages are missing: it has %s of seq 0 to %s', count(*), max(m.seq))
			FROM messages m GROUP BY m.session_id, m.branch_id HAVING count(*) <> max(m.seq) + 1`,
	},
	{
		what: "branch %s: %s",
		find: `SELECT m.session_id::text, m.branch_id::text, format('%s messages of no branch', count(*))
			FROM messages m WHERE NOT EXISTS (SELECT 1 FROM branches b
				WHERE b.session_id = m.session_id AND b.branch_id = m.branch_id)
			GROUP BY 1, 2`,
	},
	{
		what: "branch %s: %s",
		find: `SELECT b.session_id::text, b.branch_id::text, 'its parent is gone, or is not a branch of the session'
			FROM branches b WHERE b.deleted_at IS NULL AND b.parent_id IS NOT NULL AND NOT EXISTS (
				SELECT 1 FROM branches p WHERE p.session_id = b.session_id AND p.branch_id = b.parent_id AND p.deleted_at IS NULL)`,
	},
	{
		what: "branch %s: %s",
		find: `SELECT b.session_id::text, b.branch_id::text, format('forks at %s of its parent''s %s messages', b.fork_at, p.next_seq)
			FROM branches b JOIN branches p ON p.session_id = b.session_id AND p.branch_id = b.parent_id
			WHERE b.fork_at > p.next_seq OR b.fork_at < 0`,
	},
	{
		what: "branch %s: %s",
		find: `SELECT b.session_id::text, b.branch_id::text, format('inherits %s messages, its ancestry has %s', b.inherited, p.inherited + b.fork_at)
			FROM branches b JOIN branches p ON p.session_id = b.session_id AND p.branch_id = b.parent_id
			WHERE b.inherited <> p.inherited + b.fork_at`,
		repair: `UPDATE branches b SET inherited = p.inherited + b.fork_at
			FROM branches p WHERE p.session_id = b.session_id AND p.branch_id = b.parent_id
				AND b.inherited <> p.inherited + b.fork_at`,
	},
	{
		what: "session %s: %s",
		find: `SELECT s.session_id::text, '', format('%s default branches', count(b.branch_id))
			FROM sessions s LEFT JOIN branches b ON b.session_id = s.session_id AND b.parent_id IS NULL AND b.deleted_at IS NULL
			GROUP BY s.session_id HAVING count(b.branch_id) <> 1`,
	},
	{
		what: "session %s: %s",
		find: `SELECT b.session_id::text, '', 'its branch rows do not all say whether it is in the trash'
			FROM branches b JOIN sessions s ON s.session_id = b.session_id
			WHERE b.trashed <> (s.state = 'trashed') GROUP BY 1`,
		repair: `UPDATE branches b SET trashed = (s.state = 'trashed') FROM sessions s
			WHERE s.session_id = b.session_id AND b.trashed <> (s.state = 'trashed')`,
	},
	{
		what: "session %s: %s",
		find: `SELECT s.session_id::text, '', format('state %s, but the names list it as %s', s.state,
				coalesce(CASE WHEN n.archived THEN 'archived' ELSE 'active ' || quote_literal(n.name) END, 'nothing'))
			FROM sessions s LEFT JOIN names n ON n.session_id = s.session_id
			WHERE (s.state = 'trashed') <> (n.name IS NULL)
				OR (n.name IS NOT NULL AND (n.archived <> (s.state = 'archived') OR n.name <> s.name))`,
	},
	{
		what: "session %s: %s",
		find: `SELECT n.session_id::text, '', format('the name %s leads to no session', quote_literal(n.name))
			FROM names n WHERE NOT EXISTS (SELECT 1 FROM sessions s WHERE s.session_id = n.session_id)`,
		// A name of nothing holds no data: removing it frees the name.
		repair: `DELETE FROM names n WHERE NOT EXISTS (SELECT 1 FROM sessions s WHERE s.session_id = n.session_id)`,
	},
}

// Fsck checks the store whole, and with repair fixes what it can without
// losing a byte.
func (st *Store) Fsck(repair bool) (backing.FsckReport, error) {
	ctx := context.Background()
	var rep backing.FsckReport
	if err := st.pool.QueryRow(ctx, `SELECT count(*) FROM sessions`).Scan(&rep.Sessions); err != nil {
		return rep, err
	}
	for _, c := range checks {
		found, err := st.find(ctx, c)
		if err != nil {
			return rep, err
		}
		if len(found) > 0 && repair && c.repair != "" {
			_, err := st.pool.Exec(ctx, c.repair)
			for i := range found {
				found[i].Repaired, found[i].Err = err == nil, err
			}
		}
		rep.Problems = append(rep.Problems, found...)
	}
	metas, err := st.badMetas(ctx)
	if err != nil {
		return rep, err
	}
	rep.Problems = append(rep.Problems, metas...)
	return rep, nil
}

func (st *Store) find(ctx context.Context, c check) ([]backing.Problem, error) {
	rows, err := st.pool.Query(ctx, c.find)
	if err != nil {
		return nil, fmt.Errorf("fsck: %w", err)
	}
	var out []backing.Problem
	var session, branch, what string
	_, err = pgx.ForEachRow(rows, []any{&session, &branch, &what}, func() error {
		subject := session
		if branch != "" {
			subject = branch + " of session " + session
		}
		out = append(out, backing.Problem{Session: session, What: fmt.Sprintf(c.what, subject, what), Fixable: c.repair != ""})
		return nil
	})
	return out, err
}

// badMetas lists the sessions whose meta is not one the store can read,
// or does not say what the session's row does.
func (st *Store) badMetas(ctx context.Context) ([]backing.Problem, error) {
	rows, err := st.pool.Query(ctx, `SELECT session_id::text, name, state, meta FROM sessions`)
	if err != nil {
		return nil, err
	}
	var out []backing.Problem
	var id, name, state string
	var meta []byte
	_, err = pgx.ForEachRow(rows, []any{&id, &name, &state, &meta}, func() error {
		m, err := backing.DecodeStoredMeta(meta)
		switch {
		case err != nil:
			out = append(out, backing.Problem{Session: id, What: fmt.Sprintf("session %s: its meta: %v", id, err)})
		case m.ID != id || m.Name != name || m.State != state:
			out = append(out, backing.Problem{Session: id,
				What: fmt.Sprintf("session %s: its meta says id %s, name %q, state %s; its row %s, %q, %s",
					id, m.ID, m.Name, m.State, id, name, state)})
		}
		return nil
	})
	return out, err
}
