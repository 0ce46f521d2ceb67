package pgstore

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/sessfs/sessfs/backing"
)

// branchRow is a branch's row: the contract's Branch and the counts the
// engine keeps.
type branchRow struct {
	ID, Name, Parent string
	ForkAt           int64 // the parent's own messages kept
	Inherited        int64 // messages of the ancestry in all
	Created          time.Time
	NextSeq          int64 // own messages
	Events           int64 // own messages that are events
	ModTime          time.Time
}

func (r branchRow) branch() backing.Branch {
	return backing.Branch{ID: r.ID, Name: r.Name, Parent: r.Parent, ParentOffset: r.ForkAt, Created: r.Created}
}

const branchCols = `branch_id::text, name, coalesce(parent_id::text, ''), fork_at, inherited, created, next_seq, events, mod_time`

func scanBranch(row pgx.Row) (branchRow, error) {
	var r branchRow
	err := row.Scan(&r.ID, &r.Name, &r.Parent, &r.ForkAt, &r.Inherited, &r.Created, &r.NextSeq, &r.Events, &r.ModTime)
	return r, err
}

// branchSet is the live branches of a session as of one query, by id.
type branchSet map[string]branchRow

// loadBranches reads the session's live branches: one query, whatever
// their number, for the ancestry of any of them.
func (s *Session) loadBranches(ctx context.Context, q querier) (branchSet, error) {
	rows, err := q.Query(ctx, `SELECT `+branchCols+` FROM branches
		WHERE session_id = $1 AND deleted_at IS NULL`, s.id)
	if err != nil {
		return nil, err
	}
	set := branchSet{}
	for rows.Next() {
		r, err := scanBranch(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		set[r.ID] = r
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(set) == 0 {
		// No branch at all: no such session (a session always has its
		// default branch).
		return nil, fmt.Errorf("session id %s: %w", s.id, backing.ErrNotFound)
	}
	s.remember(set)
	return set, nil
}

// remember keeps what never changes of the branches (parent, fork point,
// ancestry), so that an append finds them without a query.
func (s *Session) remember(set branchSet) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, r := range set {
		if _, ok := s.fixed[id]; !ok {
			s.fixed[id] = r
		}
		if r.Parent == "" {
			s.main = id
		}
	}
}

// main is the default branch of the set.
func (set branchSet) main() (branchRow, error) {
	for _, r := range set {
		if r.Parent == "" {
			return r, nil
		}
	}
	return branchRow{}, fmt.Errorf("%w: the session has no default branch", backing.ErrDamaged)
}

// byID finds branch id of the set, "" the default one.
func (set branchSet) byID(id string) (branchRow, error) {
	if id == "" {
		return set.main()
	}
	if r, ok := set[id]; ok {
		return r, nil
	}
	return branchRow{}, fmt.Errorf("branch id %q: %w", id, backing.ErrNotFound)
}

// chain is the ancestry of b, b first, each with how many of its own
// messages b reads: all of b's own (b.NextSeq as of the set), the fork
// point of each ancestor.
func (set branchSet) chain(b branchRow) ([]span, error) {
	out := []span{{b.ID, b.NextSeq}}
	for cur := b; cur.Parent != ""; {
		p, ok := set[cur.Parent]
		if !ok {
			return nil, fmt.Errorf("%w: branch %q: its parent is gone", backing.ErrDamaged, b.Name)
		}
		if len(out) > len(set) {
			return nil, fmt.Errorf("%w: branch %q: ancestry has a cycle", backing.ErrDamaged, b.Name)
		}
		out = append(out, span{p.ID, cur.ForkAt})
		cur = p
	}
	return out, nil
}

// span is the first n own messages of branch id.
type span struct {
	id string
	n  int64
}

// branches reads the live branches, in one query.
func (s *Session) branches() (branchSet, error) {
	var set branchSet
	err := s.st.read(func(ctx context.Context) (err error) {
		set, err = s.cachedBranches(ctx)
		return err
	})
	return set, err
}

// Branches lists the branches, in backing.SortBranches's order.
func (s *Session) Branches() ([]backing.Branch, error) {
	set, err := s.branches()
	if err != nil {
		return nil, err
	}
	out := make([]backing.Branch, 0, len(set))
	for _, r := range set {
		out = append(out, r.branch())
	}
	backing.SortBranches(out)
	return out, nil
}

// BadBranches is empty: a row is a branch or the database refused it.
func (s *Session) BadBranches() ([]backing.BadBranch, error) { return nil, nil }

// Branch finds a branch by name, "" the default one.
func (s *Session) Branch(name string) (backing.Branch, error) {
	set, err := s.branches()
	if err != nil {
		return backing.Branch{}, err
	}
	if name == "" {
		r, err := set.main()
		return r.branch(), err
	}
	for _, r := range set {
		if r.Name == name {
			return r.branch(), nil
		}
	}
	return backing.Branch{}, fmt.Errorf("branch %q: %w", name, backing.ErrNotFound)
}

// BranchByID finds a branch by id, "" the default one.
func (s *Session) BranchByID(id string) (backing.Branch, error) {
	if id != "" && !validID(id) {
		return backing.Branch{}, fmt.Errorf("branch id %q: %w", id, backing.ErrNotFound)
	}
	set, err := s.branches()
	if err != nil {
		return backing.Branch{}, err
	}
	r, err := set.byID(id)
	return r.branch(), err
}

// Fork makes branch name from branch fromID, keeping its first at
// messages (backing.Head: all of them): one row, whatever the history's
// length. The new branch's parent is the branch whose own messages hold
// the last one kept, so it depends on no more history than it shows.
func (s *Session) Fork(fromID string, at int, name string) (backing.Branch, error) {
	if err := backing.ValidName(name); err != nil {
		return backing.Branch{}, err
	}
	if fromID != "" && !validID(fromID) {
		return backing.Branch{}, fmt.Errorf("branch id %q: %w", fromID, backing.ErrNotFound)
	}
	id, err := uuid.NewV7()
	if err != nil {
		return backing.Branch{}, err
	}
	var b branchRow
	err = s.st.inTx(func(ctx context.Context, tx pgx.Tx, cs *changes) error {
		if _, _, err := lockSession(ctx, tx, s.id, false); err != nil {
			return err
		}
		set, err := s.loadBranches(ctx, tx)
		if err != nil {
			return err
		}
		src, err := set.byID(fromID)
		if err != nil {
			return err
		}
		for _, r := range set {
			if r.Name == name {
				return fmt.Errorf("branch %q: %w", name, backing.ErrExist)
			}
		}
		chain, err := set.chain(src)
		if err != nil {
			return err
		}
		parent, forkAt, err := forkPoint(set, src, chain, at)
		if err != nil {
			return err
		}
		t := now()
		b = branchRow{ID: id.String(), Name: name, Parent: parent.ID, ForkAt: forkAt,
			Inherited: parent.Inherited + forkAt, Created: t, ModTime: t}
		if _, err := tx.Exec(ctx, `INSERT INTO branches (session_id, branch_id, name, parent_id, fork_at, inherited, created, mod_time)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`, s.id, b.ID, b.Name, b.Parent, b.ForkAt, b.Inherited, t); err != nil {
			if isUnique(err, "branches_name") {
				return fmt.Errorf("branch %q: %w", name, backing.ErrExist)
			}
			return err
		}
		return s.st.record(ctx, tx, cs, backing.Change{Kind: backing.BranchesChanged, Session: s.id, Branch: b.ID})
	})
	if err != nil {
		return backing.Branch{}, err
	}
	return b.branch(), nil
}

// forkPoint is where a fork of src keeping its first at messages leaves
// its ancestry: the branch whose own messages hold message at-1 and how
// many of them it keeps (the root and 0 for at 0).
func forkPoint(set branchSet, src branchRow, chain []span, at int) (branchRow, int64, error) {
	total := src.Inherited + src.NextSeq
	if at == backing.Head {
		return src, src.NextSeq, nil
	}
	if at < 0 || int64(at) > total {
		return src, 0, backing.Sentencef(backing.ErrInvalid, "fork point %d: branch %q has %s",
			at, src.Name, backing.Plural(int(total), "message"))
	}
	root := set[chain[len(chain)-1].id]
	if at == 0 {
		return root, 0, nil
	}
	for _, sp := range chain {
		r := set[sp.id]
		if int64(at) > r.Inherited {
			return r, int64(at) - r.Inherited, nil
		}
	}
	return root, int64(at), nil
}

// RenameBranch renames a branch, never over another branch's name.
func (s *Session) RenameBranch(id, name string) error {
	if err := backing.ValidName(name); err != nil {
		return err
	}
	if !validID(id) {
		return fmt.Errorf("branch id %q: %w", id, backing.ErrNotFound)
	}
	return s.st.inTx(func(ctx context.Context, tx pgx.Tx, cs *changes) error {
		if _, _, err := lockSession(ctx, tx, s.id, false); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE branches SET name = $3
			WHERE session_id = $1 AND branch_id = $2 AND deleted_at IS NULL`, s.id, id, name)
		if isUnique(err, "branches_name") {
			return fmt.Errorf("branch %q: %w", name, backing.ErrExist)
		}
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("branch id %q: %w", id, backing.ErrNotFound)
		}
		return s.st.record(ctx, tx, cs, backing.Change{Kind: backing.BranchesChanged, Session: s.id, Branch: id})
	})
}

// DeleteBranch removes a branch with no children, keeping its messages:
// the row is marked deleted and nothing finds it any more.
func (s *Session) DeleteBranch(id string) error {
	if !validID(id) {
		return fmt.Errorf("branch id %q: %w", id, backing.ErrNotFound)
	}
	return s.st.inTx(func(ctx context.Context, tx pgx.Tx, cs *changes) error {
		if _, _, err := lockSession(ctx, tx, s.id, false); err != nil {
			return err
		}
		set, err := s.loadBranches(ctx, tx)
		if err != nil {
			return err
		}
		b, err := set.byID(id)
		if err != nil {
			return err
		}
		if b.Parent == "" {
			return fmt.Errorf("branch %q: %w", b.Name, backing.ErrBusy)
		}
		var kids []string
		for _, r := range set {
			if r.Parent == b.ID {
				kids = append(kids, r.Name)
			}
		}
		if len(kids) > 0 {
			sort.Strings(kids)
			return fmt.Errorf("branch %q: %w: %s", b.Name, backing.ErrNotEmpty, strings.Join(kids, ", "))
		}
		if _, err := tx.Exec(ctx, `UPDATE branches SET deleted_at = $3 WHERE session_id = $1 AND branch_id = $2`,
			s.id, id, now()); err != nil {
			return err
		}
		s.forget(id)
		return s.st.record(ctx, tx, cs, backing.Change{Kind: backing.BranchesChanged, Session: s.id, Branch: id})
	})
}

// forget drops what the handle keeps of a deleted branch: a process that
// forks and deletes branches for days must not keep every one.
func (s *Session) forget(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.own, id)
	delete(s.fixed, id)
}

// errNoRows maps a missing row to what a user can act on.
func errNoRows(err error, what string) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%s: %w", what, backing.ErrNotFound)
	}
	return err
}
