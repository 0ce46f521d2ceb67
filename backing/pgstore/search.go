package pgstore

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// The Finder of the PostgreSQL engine: search is full-text search of the
// words the messages' tsvectors hold (words.go), ranked by ts_rank_cd;
// the catalog is the sessions' rows and their branches' counts, and what
// they spent (spend.go). Nothing is kept beside the store to catch up:
// what a message holds of search is written with it, in its append.

// Search returns the hits of q, best first, ties newest first: messages
// whose words match, and sessions whose title or tags do (Message -1).
func (st *Store) Search(q backing.Query) ([]backing.Hit, error) {
	terms, err := backing.ParseQuery(q.Text)
	if err != nil {
		return nil, err
	}
	var hits []backing.Hit
	err = st.read(func(ctx context.Context) (err error) {
		hits, err = st.search(ctx, q, terms)
		return err
	})
	return hits, err
}

func (st *Store) search(ctx context.Context, q backing.Query, terms []backing.Term) ([]backing.Hit, error) {
	args := []any{tsquery(terms)}
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	states := `s.state = 'active'`
	if q.Archived {
		states = `s.state IN ('active', 'archived')`
	}
	var sessionWhere []string
	if q.Project != "" {
		sessionWhere = append(sessionWhere, `s.project = `+arg(q.Project))
	}
	if q.Agent != "" {
		sessionWhere = append(sessionWhere, `s.agent = `+arg(q.Agent))
	}
	msgWhere := append([]string{`m.tsv @@ $1::tsquery`, states}, sessionWhere...)
	if !q.AllBranches {
		msgWhere = append(msgWhere, `b.parent_id IS NULL`)
	}
	if q.Role != "" {
		msgWhere = append(msgWhere, `m.role = `+arg(q.Role))
	}
	if !q.Since.IsZero() {
		msgWhere = append(msgWhere, `m.ts >= `+arg(q.Since))
	}
	if !q.Until.IsZero() {
		msgWhere = append(msgWhere, `m.ts < `+arg(q.Until))
	}
	sql := `SELECT s.session_id::text, s.name, s.state, m.branch_id::text, b.name, b.parent_id IS NULL,
			b.inherited + m.seq, m.role, m.ts, m.raw, ts_rank_cd(m.tsv, $1::tsquery) AS score
		FROM messages m
		JOIN branches b ON b.session_id = m.session_id AND b.branch_id = m.branch_id AND b.deleted_at IS NULL
		JOIN sessions s ON s.session_id = m.session_id
		WHERE ` + strings.Join(msgWhere, " AND ")
	// Filters of messages leave session hits out.
	if q.Role == "" && q.Since.IsZero() && q.Until.IsZero() {
		sql += `
		UNION ALL
		SELECT s.session_id::text, s.name, s.state, '', '', false, -1, '', NULL, s.meta,
			ts_rank_cd(s.title_tsv, $1::tsquery)
		FROM sessions s
		WHERE ` + strings.Join(append([]string{`s.title_tsv @@ $1::tsquery`, states}, sessionWhere...), " AND ")
	}
	sql += ` ORDER BY score DESC, ts DESC NULLS LAST`
	if q.Limit > 0 {
		sql += ` LIMIT ` + arg(q.Limit)
	}
	rows, err := st.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	var hits []backing.Hit
	var raws [][]byte
	for rows.Next() {
		var h backing.Hit
		var ts *time.Time
		var raw []byte
		var score float32
		if err := rows.Scan(&h.Session, &h.Name, &h.State, &h.Branch, &h.BranchName, &h.Default,
			&h.Message, &h.Role, &ts, &raw, &score); err != nil {
			rows.Close()
			return nil, err
		}
		if ts != nil {
			h.Time = *ts
		}
		h.Score = float64(score)
		hits, raws = append(hits, h), append(raws, raw)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range hits {
		h := &hits[i]
		text := ""
		if h.Message < 0 {
			m, _ := backing.DecodeStoredMeta(raws[i])
			text = titleText(m, false)
		} else {
			_, _, text = backing.SearchText(raws[i])
		}
		h.Snippet, h.Marks = snippet(text, terms)
	}
	if err := st.turns(ctx, hits); err != nil {
		return nil, err
	}
	return hits, nil
}

// turns sets each message hit's turn, from a view of its branch: one view
// a branch, whatever the hits in it.
func (st *Store) turns(ctx context.Context, hits []backing.Hit) error {
	type key struct{ session, branch string }
	views := map[key]*View{}
	for i := range hits {
		h := &hits[i]
		if h.Message < 0 {
			continue
		}
		k := key{h.Session, h.Branch}
		v, ok := views[k]
		if !ok {
			s := st.handle(h.Session)
			set, err := s.loadBranches(ctx, st.pool)
			if err != nil {
				return err
			}
			b, err := set.byID(h.Branch)
			if err != nil {
				return err
			}
			if v, err = s.view(ctx, set, b); err != nil {
				return err
			}
			views[k] = v
		}
		if h.Message < v.Len() {
			h.Turn = v.TurnOf(h.Message)
		}
	}
	return nil
}

// Catalog lists the sessions q matches, newest activity first, in one
// query of the sessions and their branches' counts, after catching up
// what they spent.
func (st *Store) Catalog(q backing.CatalogQuery) ([]backing.Entry, error) {
	var out []backing.Entry
	err := st.read(func(ctx context.Context) (err error) {
		out, err = st.catalog(ctx, q)
		return err
	})
	return out, err
}

func (st *Store) catalog(ctx context.Context, q backing.CatalogQuery) ([]backing.Entry, error) {
	if err := st.catchUpSpend(ctx); err != nil {
		return nil, err
	}
	rows, err := st.pool.Query(ctx, `SELECT s.session_id::text, s.name, s.state, s.meta, s.created,
			coalesce(d.next_seq - d.events, 0), x.last, coalesce(x.bytes, 0)
		FROM sessions s
		LEFT JOIN branches d ON d.session_id = s.session_id AND d.parent_id IS NULL AND d.deleted_at IS NULL
		LEFT JOIN LATERAL (SELECT max(b.mod_time) AS last, sum(b.bytes) AS bytes FROM branches b
			WHERE b.session_id = s.session_id AND b.deleted_at IS NULL) x ON true
		WHERE $1 OR s.state = 'active'`, q.All)
	if err != nil {
		return nil, err
	}
	var out []backing.Entry
	at := map[string]int{}
	for rows.Next() {
		var e backing.Entry
		var meta []byte
		var visible int64
		var last *time.Time
		if err := rows.Scan(&e.ID, &e.Name, &e.State, &meta, &e.Created, &visible, &last, &e.Bytes); err != nil {
			rows.Close()
			return nil, err
		}
		e.Messages, e.LastActivity = int(visible), e.Created
		if last != nil && last.After(e.LastActivity) {
			e.LastActivity = *last
		}
		if m, err := backing.DecodeStoredMeta(meta); err == nil {
			e.Title, e.Agent, e.Project, e.Tags = m.Title, backing.AgentOf(m), backing.ProjectOf(m), m.Tags
			e.Created = m.Created
		}
		e.ByModel = backing.ModelUsage{}
		if !q.Matches(e) {
			continue
		}
		at[e.ID] = len(out)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if err := st.spent(ctx, out, at); err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if !a.LastActivity.Equal(b.LastActivity) {
			return a.LastActivity.After(b.LastActivity)
		}
		return a.Name < b.Name
	})
	return out, nil
}
