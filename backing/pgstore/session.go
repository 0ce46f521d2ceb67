package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sessfs/sessfs/backing"
)

// Session is a handle on one session, by id: it stays valid across
// renames, archiving and the trash. The store keeps one handle per session
// and process, so every goroutine shares its branches' indexes.
type Session struct {
	st *Store
	id string

	mu     sync.Mutex
	own    map[string]*ownIndex    // by branch id: counts, lengths and kinds
	groups map[string]*appendGroup // by branch id: appends waiting to commit (group.go)
	fixed  map[string]branchRow    // by branch id: what never changes of a branch
	main   string                  // the default branch's id, once known
	rows   rowCache                // branch rows and state, while the listener is caught up

	titled atomic.Bool // the session has had a title (see autoTitle)
}

// handle returns the process-wide handle of session id.
func (st *Store) handle(id string) *Session {
	st.mu.Lock()
	defer st.mu.Unlock()
	if s := st.sessions[id]; s != nil {
		return s
	}
	s := &Session{st: st, id: id, own: map[string]*ownIndex{}, groups: map[string]*appendGroup{}, fixed: map[string]branchRow{}}
	st.sessions[id] = s
	return s
}

// ID is the session's id, a UUID v7.
func (s *Session) ID() string { return s.id }

// Trashed reports whether the session is in the trash, and so read-only.
func (s *Session) Trashed() bool {
	var state string
	err := s.st.read(func(ctx context.Context) (err error) {
		state, err = s.cachedState(ctx)
		return err
	})
	return err == nil && state == backing.StateTrashed
}

// MetaBytes is meta.json as stored.
func (s *Session) MetaBytes() ([]byte, error) {
	var b []byte
	err := s.st.read(func(ctx context.Context) error {
		return s.st.pool.QueryRow(ctx, `SELECT meta FROM sessions WHERE session_id = $1`, s.id).Scan(&b)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("session id %s: %w", s.id, backing.ErrNotFound)
	}
	return b, err
}

// Meta is the session's meta.
func (s *Session) Meta() (backing.Meta, error) {
	b, err := s.MetaBytes()
	if err != nil {
		return backing.Meta{}, err
	}
	m, err := backing.DecodeStoredMeta(b)
	if err != nil {
		return m, fmt.Errorf("session %s: %w", s.id, err)
	}
	return m, nil
}

// MetaModTime is when the meta last changed.
func (s *Session) MetaModTime() (time.Time, error) {
	var t time.Time
	err := s.st.read(func(ctx context.Context) error {
		return s.st.pool.QueryRow(ctx, `SELECT meta_time FROM sessions WHERE session_id = $1`, s.id).Scan(&t)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return t, fmt.Errorf("session id %s: %w", s.id, backing.ErrNotFound)
	}
	return t, err
}

// LastAppend is the time of the last append to any branch, or of the
// session's creation.
func (s *Session) LastAppend() (time.Time, error) {
	var t *time.Time
	err := s.st.read(func(ctx context.Context) error {
		return s.st.pool.QueryRow(ctx, `SELECT max(mod_time) FROM branches
			WHERE session_id = $1 AND deleted_at IS NULL`, s.id).Scan(&t)
	})
	if err != nil || t == nil {
		return time.Time{}, err
	}
	return *t, nil
}

// CheckMeta is EditMeta's check of a document, without the edit.
func (s *Session) CheckMeta(doc []byte) (backing.Meta, error) {
	return backing.CheckMetaDoc(s.id, doc)
}

// EditMeta replaces the meta with a user's document by the rule of
// backing.Edited. A stored meta that cannot be read (written by hand into
// the database) is replaced by doc whole, its name and state taken from
// the session's row.
func (s *Session) EditMeta(doc []byte) (backing.Meta, error) {
	in, err := s.CheckMeta(doc)
	if err != nil {
		return in, err
	}
	return s.updateMeta(func(m *backing.Meta, readErr error, row sessionRow) error {
		t := now()
		if readErr != nil {
			*m = in
			m.Name, m.State, m.Trashed = row.name, row.state, time.Time{}
			if m.Created.IsZero() {
				m.Created = t
			}
			m.Updated = t
			return nil
		}
		*m = backing.Edited(*m, in, t)
		return nil
	})
}

// SetExtra sets one field of the meta beside the known ones; a nil value
// removes it.
func (s *Session) SetExtra(key string, v json.RawMessage) error {
	if err := backing.ValidExtra(key, v); err != nil {
		return err
	}
	_, err := s.updateMeta(func(m *backing.Meta, readErr error, _ sessionRow) error {
		if readErr != nil {
			return readErr
		}
		m.PutExtra(key, v)
		m.Updated = now()
		return nil
	})
	return err
}

// SetParent names the session this one was derived from.
func (s *Session) SetParent(id string) error {
	_, err := s.updateMeta(func(m *backing.Meta, readErr error, _ sessionRow) error {
		if readErr != nil {
			return readErr
		}
		m.Parent, m.Updated = id, now()
		return nil
	})
	return err
}

// sessionRow is what a change to the meta may need of the session's row.
type sessionRow struct{ name, state string }

// updateMeta applies change to the meta under the session's row lock; a
// session in the trash refuses it (ErrTrashed). change is given the
// error of reading the stored meta, if it could not be read.
func (s *Session) updateMeta(change func(m *backing.Meta, readErr error, row sessionRow) error) (backing.Meta, error) {
	var m backing.Meta
	err := s.st.inTx(func(ctx context.Context, tx pgx.Tx, cs *changes) error {
		state, raw, err := lockSession(ctx, tx, s.id, false)
		if err != nil {
			return err
		}
		var row sessionRow
		m, err = backing.DecodeStoredMeta(raw)
		if err != nil {
			row.state = state
			if err := tx.QueryRow(ctx, `SELECT name FROM sessions WHERE session_id = $1`, s.id).Scan(&row.name); err != nil {
				return err
			}
			m = backing.Meta{}
		}
		if err := change(&m, err, row); err != nil {
			return err
		}
		if err := putMeta(ctx, tx, s.id, m); err != nil {
			return err
		}
		return s.st.record(ctx, tx, cs, backing.Change{Kind: backing.MetaChanged, Session: s.id})
	})
	return m, err
}

// putMeta stores m as the session's meta, and the columns the store keeps
// of it (name, state, trash time, and what search finds) with it.
func putMeta(ctx context.Context, q querier, id string, m backing.Meta) error {
	data, err := backing.EncodeMeta(m)
	if err != nil {
		return err
	}
	var trashed *time.Time
	if !m.Trashed.IsZero() {
		trashed = &m.Trashed
	}
	auto, err := autoTitled(ctx, q, id, m.Title)
	if err != nil {
		return err
	}
	_, err = q.Exec(ctx, `UPDATE sessions SET meta = $2, meta_time = $3, name = $4, state = $5, trashed_at = $6,
			project = $7, agent = $8, title_tsv = $9::text::tsvector
		WHERE session_id = $1`, id, data, now(), m.Name, m.State, trashed,
		backing.ProjectOf(m), backing.AgentOf(m), titleVector(m, auto))
	return err
}

// titleText is what a session hit matches: its title and tags, but not a
// title made from the first prompt, which that prompt's own hit finds.
func titleText(m backing.Meta, auto bool) string {
	var lines []string
	if !auto && m.Title != "" {
		lines = append(lines, m.Title)
	}
	return strings.Join(append(lines, m.Tags...), "\n")
}

// titleVector is the words of titleText, NULL when there are none.
func titleVector(m backing.Meta, auto bool) *string {
	if v := tsvector(titleText(m, auto)); v != "" {
		return &v
	}
	return nil
}

// autoTitled reports whether title is the one the first prompt of the
// session's default branch gives (backing.TitleOf), not one a person or
// an agent chose.
func autoTitled(ctx context.Context, q querier, id, title string) (bool, error) {
	if title == "" {
		return false, nil
	}
	var raw []byte
	err := q.QueryRow(ctx, `SELECT m.raw FROM messages m JOIN branches b
			ON b.session_id = m.session_id AND b.branch_id = m.branch_id AND b.parent_id IS NULL
		WHERE m.session_id = $1 AND m.kind & 1 <> 0 ORDER BY m.seq LIMIT 1`, id).Scan(&raw)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return backing.TitleOf(backing.PromptText(raw), backing.TitleMax) == title, nil
}
