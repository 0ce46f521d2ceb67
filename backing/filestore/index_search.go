package filestore

import (
	"database/sql"
	"strings"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// The search of the index: FTS5 MATCH, ranked by bm25.

// Snippet marks: bytes no text holds (SearchText's text is JSON strings,
// where control characters come escaped and are decoded; these two are
// not in any real message), cut out into Hit.Marks.
const (
	markOpen  = "\x02"
	markClose = "\x03"
)

// ftsQuery writes terms in FTS5's query language: each term a quoted
// string (so punctuation splits words as the tokenizer does, and no user
// text is syntax), prefix terms with *, OR and AND as given, and the NOT
// terms taken out of the whole.
func ftsQuery(terms []backing.Term) string {
	var pos, neg []string
	for _, t := range terms {
		s := `"` + strings.ReplaceAll(t.Text, `"`, `""`) + `"`
		if t.Prefix {
			s += "*"
		}
		switch {
		case t.Not:
			neg = append(neg, s)
		case t.Or && len(pos) > 0:
			pos[len(pos)-1] += " OR " + s
		default:
			pos = append(pos, s)
		}
	}
	q := "((" + strings.Join(pos, ") AND (") + "))"
	for _, n := range neg {
		q += " NOT " + n
	}
	return q
}

// rankMax is how many messages a query's rarest word may be in and its
// hits still be ranked: ranking scores every match (bm25), which takes
// about 2 µs a match here, so a word in most messages of a big store
// (the, error) lists its hits newest first instead, in a millisecond.
var rankMax = 20_000 // a variable for the tests

// common reports whether the query matches more than rankMax rows. The
// count stops there, so it costs the same for a word in every message of
// a store of any size (a word's row count from fts5vocab reads its whole
// list: 45 ms for "the" over 1 GB).
func common(db *sql.DB, match string) bool {
	var n int
	db.QueryRow(`SELECT count(*) FROM (SELECT rowid FROM text WHERE text MATCH ? LIMIT ?)`, match, rankMax+1).Scan(&n)
	return n > rankMax
}

func search(db *sql.DB, q backing.Query, terms []backing.Term) ([]backing.Hit, error) {
	where := []string{`text MATCH ?`}
	args := []any{ftsQuery(terms)}
	states := `s.state = 'active'`
	if q.Archived {
		states = `s.state IN ('active', 'archived')`
	}
	where = append(where, states)
	if !q.AllBranches {
		where = append(where, `(m.branch = s.default_branch OR m.branch = '')`)
	}
	if q.Project != "" {
		where = append(where, `s.project = ?`)
		args = append(args, q.Project)
	}
	if q.Agent != "" {
		where = append(where, `s.agent = ?`)
		args = append(args, q.Agent)
	}
	// Filters of messages leave session hits (titles) out.
	if q.Role != "" {
		where = append(where, `m.role = ?`)
		args = append(args, q.Role)
	}
	if !q.Since.IsZero() {
		where = append(where, `m.ts >= ?`)
		args = append(args, q.Since.UnixNano())
	}
	if !q.Until.IsZero() {
		where = append(where, `m.ts < ?`)
		args = append(args, q.Until.UnixNano())
	}
	// Rows are numbered as messages are indexed: in the order they were
	// appended, by session age on a rebuild. Newest first is rowid order.
	order := ` ORDER BY bm25(text), m.ts DESC`
	if common(db, args[0].(string)) {
		order = ` ORDER BY text.rowid DESC`
	}
	limit := ""
	if q.Limit > 0 {
		limit = ` LIMIT ?`
		args = append(args, q.Limit)
	}
	rows, err := db.Query(`SELECT s.id, s.name, s.state, m.branch, coalesce(b.name, ''), s.default_branch,
			m.pos, m.turn, m.role, m.ts, snippet(text, 0, char(2), char(3), '…', 24), bm25(text)
		FROM text
		JOIN messages m ON m.row = text.rowid
		JOIN sessions s ON s.id = m.session
		LEFT JOIN branches b ON b.id = m.branch
		WHERE `+strings.Join(where, " AND ")+order+limit, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var hits []backing.Hit
	for rows.Next() {
		var h backing.Hit
		var def, snippet string
		var ts int64
		var rank float64
		if err := rows.Scan(&h.Session, &h.Name, &h.State, &h.Branch, &h.BranchName, &def,
			&h.Message, &h.Turn, &h.Role, &ts, &snippet, &rank); err != nil {
			return nil, err
		}
		h.Default = h.Branch == def || h.Branch == ""
		h.Time = fromNano(ts)
		h.Snippet, h.Marks = cutMarks(snippet)
		h.Score = -rank // bm25 is lower for better matches
		hits = append(hits, h)
	}
	return hits, rows.Err()
}

// cutMarks takes the match marks out of a snippet and says where they were.
func cutMarks(s string) (string, [][2]int) {
	var b strings.Builder
	var marks [][2]int
	open := -1
	for _, r := range s {
		switch string(r) {
		case markOpen:
			open = b.Len()
		case markClose:
			if open >= 0 {
				marks = append(marks, [2]int{open, b.Len()})
				open = -1
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String(), marks
}

func fromNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}
