package pgstore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sessfs/sessfs/backing"
)

// appendSQL appends messages to a branch in one statement: it leaves out
// the retries (messages whose own id, given by the writer, the branch has
// up to its fork points, or that came earlier in the batch), advances the
// branch's next_seq by what is left (the row's lock orders concurrent
// appenders, and the primary key is the backstop), inserts those at the
// sequence numbers it took, records the change and notifies. A branch
// deleted or in the trash updates no row, and the statement returns none.
//
// $1 session, $2 branch, $3 raw, $4 msg_id, $5 kind, $6 given, $11 role,
// $12 ts, $13 tsv, $14 spends: one element a message (see fields); $7,
// $8: the ancestry's branches and how many of their own messages the
// branch reads (for retries); $9 the time, $10 the origin.
const appendSQL = `
WITH t AS (
	SELECT * FROM unnest($3::bytea[], $4::bytea[], $5::smallint[], $6::boolean[],
			$11::text[], $12::timestamptz[], $13::text[], $14::boolean[])
		WITH ORDINALITY AS t(raw, msg_id, kind, given, role, ts, tsv, spends, ord)
), keep AS (
	SELECT t.raw, t.msg_id, t.kind, t.role, t.ts, t.tsv, t.spends,
		row_number() OVER (ORDER BY t.ord) - 1 AS k
	FROM t
	WHERE NOT t.given OR NOT (
		EXISTS (SELECT 1 FROM t AS e WHERE e.given AND e.msg_id = t.msg_id AND e.ord < t.ord)
		OR EXISTS (SELECT 1 FROM unnest($7::uuid[], $8::bigint[]) AS a(branch_id, n)
			JOIN messages m ON m.session_id = $1 AND m.branch_id = a.branch_id
				AND m.msg_id = t.msg_id AND m.seq < a.n))
), added AS (
	SELECT count(*) AS n, count(*) FILTER (WHERE kind & 2 <> 0) AS events,
		coalesce(sum(octet_length(raw)), 0) AS bytes
	FROM keep
), b AS (
	UPDATE branches SET next_seq = next_seq + added.n, events = branches.events + added.events,
		bytes = branches.bytes + added.bytes,
		mod_time = CASE WHEN added.n > 0 THEN $9 ELSE mod_time END
	FROM added
	WHERE session_id = $1 AND branch_id = $2 AND deleted_at IS NULL AND NOT trashed
	RETURNING next_seq, inherited, added.n AS n, branches.events, mod_time
), ins AS (
	INSERT INTO messages (session_id, branch_id, seq, raw, raw_len, msg_id, kind, role, ts, tsv, spends)
	SELECT $1, $2, b.next_seq - b.n + keep.k, keep.raw, octet_length(keep.raw), keep.msg_id, keep.kind,
		keep.role, keep.ts, keep.tsv::tsvector, keep.spends
	FROM b, keep
), ch AS (
	INSERT INTO changes (session_id, kind, branch_id, len, origin, at)
	SELECT $1, 1, $2, b.inherited + b.next_seq, $10, $9 FROM b WHERE b.n > 0
	RETURNING revision, origin
)
SELECT b.next_seq, b.inherited, b.n, b.events, b.mod_time, (SELECT count(pg_notify('` + notifyChannel + `', ` + notifyPayload + `)) FROM ch)
FROM b`

// appendNewSQL is appendSQL for a batch with no id of its writer's, so
// nothing to leave out: the counts are the batch's own ($6 messages, $7
// events, $8 bytes), and the plan has no window or subquery to run. The
// other parameters are appendSQL's.
const appendNewSQL = `
WITH b AS (
	UPDATE branches SET next_seq = next_seq + $6, events = events + $7, bytes = bytes + $8, mod_time = $9
	WHERE session_id = $1 AND branch_id = $2 AND deleted_at IS NULL AND NOT trashed
	RETURNING next_seq, inherited, events, mod_time
), ins AS (
	INSERT INTO messages (session_id, branch_id, seq, raw, raw_len, msg_id, kind, role, ts, tsv, spends)
	SELECT $1, $2, b.next_seq - $6 + t.ord - 1, t.raw, octet_length(t.raw), t.msg_id, t.kind,
		t.role, t.ts, t.tsv::tsvector, t.spends
	FROM b, unnest($3::bytea[], $4::bytea[], $5::smallint[], $11::text[], $12::timestamptz[], $13::text[], $14::boolean[])
		WITH ORDINALITY AS t(raw, msg_id, kind, role, ts, tsv, spends, ord)
), ch AS (
	INSERT INTO changes (session_id, kind, branch_id, len, origin, at)
	SELECT $1, 1, $2, b.inherited + b.next_seq, $10, $9 FROM b
	RETURNING revision, origin
)
SELECT b.next_seq, b.inherited, $6::bigint, b.events, b.mod_time, pg_notify('` + notifyChannel + `', ` + notifyPayload + `) IS NULL
FROM b, ch`

// AppendID adds messages to a branch, all or none, in order, never
// interleaved with another append; durable when it returns nil. A message
// whose own id the branch already has is acknowledged and not stored
// again. The appends this process makes to a branch at once are committed
// together (group.go), one statement each time: with no id of a writer's,
// only that; with such ids, the branch's row is locked first in the same
// round trip, so that the check for retries sees every append ordered
// before it. A statement whose connection is lost runs again as such a
// retry, on another.
func (s *Session) AppendID(branchID string, msgs [][]byte) error {
	if len(msgs) == 0 {
		return nil
	}
	if branchID != "" && !validID(branchID) {
		return fmt.Errorf("branch id %q: %w", branchID, backing.ErrNotFound)
	}
	t := now()
	r := &appendReq{prompt: -1, wake: make(chan bool, 1)}
	for i, raw := range msgs {
		line, id, g, err := backing.Prepare(raw, t, s.st.opts.MaxMessage)
		if err != nil {
			return &backing.MessageError{N: i, Err: err}
		}
		if k := r.f.add(line, id, g); k.Prompt && r.prompt < 0 {
			r.prompt = i
		}
	}
	var b branchRow
	if err := s.st.readNow(func(ctx context.Context) (err error) {
		b, err = s.fixedBranch(ctx, branchID)
		return err
	}); err != nil {
		return err
	}
	return s.group(b.ID).do(r, func(batch []*appendReq) {
		var f fields
		var prompt []byte // the first prompt of the batch
		for _, r := range batch {
			if r.prompt >= 0 && prompt == nil {
				prompt = r.f.raw[r.prompt]
			}
			f.join(&r.f)
		}
		err := s.commit(b, &f, prompt)
		for _, r := range batch {
			r.err = err
		}
	})
}

// commit appends the messages f to branch b in one statement, and tells
// what changed; prompt is the first prompt among them, nil none.
func (s *Session) commit(b branchRow, f *fields, prompt []byte) error {
	anyGiven := slices.Contains(f.given, true)
	var ancIDs []string
	var ancN []int64
	if anyGiven {
		if err := s.st.readNow(func(ctx context.Context) (err error) {
			ancIDs, ancN, err = s.ancestry(ctx, b)
			return err
		}); err != nil {
			return err
		}
	}
	t := now()
	sql, args := appendNewSQL, []any{s.id, b.ID, f.raw, f.id, f.kind, int64(len(f.raw)), f.events, f.bytes,
		t, s.st.origin, f.role, f.ts, f.tsv, f.spends}
	if anyGiven {
		sql, args = appendSQL, []any{s.id, b.ID, f.raw, f.id, f.kind, f.given, ancIDs, ancN, t, s.st.origin,
			f.role, f.ts, f.tsv, f.spends}
	}
	var next, inherited, n, events int64
	var mod time.Time
	found, sent, byID := false, false, false
	err := s.st.again(func(ctx context.Context) error {
		if sent && !byID {
			// The attempt before lost its connection, perhaps after it
			// committed (its answer lost): this one is a retry by id.
			// Every message has its id since Prepare, the writer's or
			// the store's, so the statement that leaves out the ids the
			// branch has stores what the first did not, and nothing
			// twice.
			byID = true
			for i := range f.given {
				f.given[i] = true
			}
			if !anyGiven {
				anyGiven = true
				var err error
				if ancIDs, ancN, err = s.ancestry(ctx, b); err != nil {
					return err
				}
			}
			sql, args = appendSQL, []any{s.id, b.ID, f.raw, f.id, f.kind, f.given, ancIDs, ancN, t, s.st.origin,
				f.role, f.ts, f.tsv, f.spends}
		}
		sent = true
		batch := &pgx.Batch{}
		if anyGiven {
			batch.Queue(`SELECT 1 FROM branches WHERE session_id = $1 AND branch_id = $2 FOR UPDATE`, s.id, b.ID)
		}
		found = false
		batch.Queue(sql, args...).QueryRow(func(row pgx.Row) error {
			var notified any
			err := row.Scan(&next, &inherited, &n, &events, &mod, &notified)
			if errors.Is(err, pgx.ErrNoRows) {
				return nil
			}
			found = err == nil
			return err
		})
		// A batch is one implicit transaction: the lock is held until
		// the append commits.
		return s.st.pool.SendBatch(ctx, batch).Close()
	}, lostConnection)
	if err != nil {
		return err
	}
	if !found {
		if err := s.st.read(func(ctx context.Context) error { return s.whyNot(ctx, b.ID) }); err != nil {
			return err
		}
		// The branch is there and writable: an append always updates
		// its row. Never report a success that did not happen.
		return fmt.Errorf("append to branch %s: the statement changed nothing", b.ID)
	}
	if n == 0 && !byID {
		return nil // every message was a retry of its writer's
	}
	// What a view reads of the branch is known without asking: its row
	// as the statement left it and, for messages stored as sent, their
	// lengths and kinds. So the subscribers are told directly, not
	// through st.publish, which would drop the row just brought up to
	// date.
	s.grew(b.ID, next, events, mod)
	if !anyGiven {
		s.indexed(b.ID, next, f)
	}
	// After a retry by id that stored nothing, the attempt whose answer
	// was lost stored it all: this process's subscribers are told as
	// for any append (the listener skips this process's changes).
	s.st.feed.Publish(backing.Change{Kind: backing.Appended, Session: s.id, Branch: b.ID, Len: int(inherited + next)})
	// The title: not after such a retry, whose before (next-n) would
	// count this append's own prompt as an earlier one; a later prompt
	// does not title the session either (a known gap, that rare).
	if n > 0 && prompt != nil && b.Parent == "" && !s.titled.Load() {
		s.autoTitle(prompt, next-n)
	}
	return nil
}

// fields are the columns of the messages of an append, one element a
// message: what is derived from a message is derived once, as it is
// stored.
type fields struct {
	raw, id       [][]byte
	kind          []int16
	given, spends []bool
	role          []string
	ts            []*time.Time
	tsv           []*string
	events, bytes int64 // of them all
}

// join adds o's messages after f's.
func (f *fields) join(o *fields) {
	f.raw, f.id, f.kind, f.given = append(f.raw, o.raw...), append(f.id, o.id...), append(f.kind, o.kind...), append(f.given, o.given...)
	f.role, f.ts, f.tsv, f.spends = append(f.role, o.role...), append(f.ts, o.ts...), append(f.tsv, o.tsv...), append(f.spends, o.spends...)
	f.events, f.bytes = f.events+o.events, f.bytes+o.bytes
}

// add derives the columns of line, a prepared message with its own id
// (given: by the writer), and says what kind of message it is.
func (f *fields) add(line []byte, id string, given bool) backing.Kind {
	k, _, _ := backing.Classify(line)
	role, ts, text := backing.SearchText(line)
	if role == "" {
		role = backing.EventRole // what search leaves out
	}
	var when *time.Time
	if !ts.IsZero() {
		when = &ts
	}
	var vec *string
	if v := tsvector(text); v != "" {
		vec = &v
	}
	u, model, key := backing.UsageOf(line)
	f.raw, f.id, f.kind, f.given = append(f.raw, line), append(f.id, []byte(id)), append(f.kind, kindBits(k)), append(f.given, given)
	f.role, f.ts, f.tsv = append(f.role, role), append(f.ts, when), append(f.tsv, vec)
	f.spends = append(f.spends, !u.IsZero() || model != "" || key != "")
	f.bytes += int64(len(line))
	if k.Event {
		f.events++
	}
	return k
}

// ancestry is what the check for retries reads of branch b: its own
// messages and those of each ancestor up to its fork point.
func (s *Session) ancestry(ctx context.Context, b branchRow) (ids []string, ns []int64, err error) {
	chain, err := s.fixedChain(ctx, b)
	if err != nil {
		return nil, nil, err
	}
	for i, sp := range chain {
		n := sp.n
		if i == 0 {
			n = math.MaxInt64
		}
		ids, ns = append(ids, sp.id), append(ns, n)
	}
	return ids, ns, nil
}

// fixedBranch is branch id ("" the default) as the handle remembers it,
// read once: its parent and fork point never change, and the statements
// that use it check that it is still there.
func (s *Session) fixedBranch(ctx context.Context, id string) (branchRow, error) {
	s.mu.Lock()
	if id == "" {
		id = s.main
	}
	r, ok := s.fixed[id]
	s.mu.Unlock()
	if ok && id != "" {
		return r, nil
	}
	set, err := s.loadBranches(ctx, s.st.pool)
	if err != nil {
		return branchRow{}, err
	}
	return set.byID(id)
}

// fixedChain is b's ancestry from what the handle remembers.
func (s *Session) fixedChain(ctx context.Context, b branchRow) ([]span, error) {
	out := []span{{b.ID, -1}}
	for cur := b; cur.Parent != ""; {
		p, err := s.fixedBranch(ctx, cur.Parent)
		if err != nil {
			return nil, err
		}
		if len(out) > 10000 {
			return nil, fmt.Errorf("%w: branch %q: ancestry has a cycle", backing.ErrDamaged, b.Name)
		}
		out = append(out, span{p.ID, cur.ForkAt})
		cur = p
	}
	return out, nil
}

// whyNot says why a statement on branch id changed no row: the session is
// in the trash, or the branch (or the session) is gone.
func (s *Session) whyNot(ctx context.Context, id string) error {
	var trashed, deleted bool
	err := s.st.pool.QueryRow(ctx, `SELECT trashed, deleted_at IS NOT NULL FROM branches
		WHERE session_id = $1 AND branch_id = $2`, s.id, id).Scan(&trashed, &deleted)
	switch {
	case errors.Is(err, pgx.ErrNoRows) || (err == nil && deleted):
		s.forget(id)
		return fmt.Errorf("branch id %q: %w", id, backing.ErrNotFound)
	case err != nil:
		return err
	case trashed:
		return backing.ErrTrashed
	}
	return nil
}

// Backdate sets a branch's last activity back to t, for an import; it
// never moves it forward.
func (s *Session) Backdate(branchID string, t time.Time) error {
	if branchID != "" && !validID(branchID) {
		return fmt.Errorf("branch id %q: %w", branchID, backing.ErrNotFound)
	}
	// It sets a time, so running it again is harmless: it is retried as
	// a read is.
	var b branchRow
	var n int64
	moved := false
	err := s.st.read(func(ctx context.Context) (err error) {
		if b, err = s.fixedBranch(ctx, branchID); err != nil {
			return err
		}
		var notified int64
		err = s.st.pool.QueryRow(ctx, `WITH b AS (
				UPDATE branches SET mod_time = $3
				WHERE session_id = $1 AND branch_id = $2 AND deleted_at IS NULL AND NOT trashed AND $3 < mod_time
				RETURNING inherited + next_seq AS n
			), ch AS (
				INSERT INTO changes (session_id, kind, branch_id, len, origin, at)
				SELECT $1, 1, $2, b.n, $4, $5 FROM b RETURNING revision, origin
			)
			SELECT b.n, (SELECT count(pg_notify('`+notifyChannel+`', `+notifyPayload+`)) FROM ch) FROM b`,
			s.id, b.ID, t, s.st.origin, now()).Scan(&n, &notified)
		if errors.Is(err, pgx.ErrNoRows) {
			return s.whyNot(ctx, b.ID) // or t is not earlier: nothing to do
		}
		moved = err == nil
		return err
	})
	if err != nil || !moved {
		return err
	}
	s.st.publish(backing.Change{Kind: backing.Appended, Session: s.id, Branch: b.ID, Len: int(n)})
	return nil
}

// autoTitle gives an untitled session the title of its first prompt, as
// the file engine does, so that a session made by mkdir or `sessfs new`
// is listed by what it is about: only for the first prompt of the default
// branch (before is how many messages it had before this one's append),
// and only while the title is empty. A failure leaves the title for a
// later append to try; the append itself stands.
func (s *Session) autoTitle(line []byte, before int64) {
	title := backing.TitleOf(backing.PromptText(line), backing.TitleMax)
	if title == "" {
		return
	}
	err := s.st.inTx(func(ctx context.Context, tx pgx.Tx, cs *changes) error {
		m, err := lockMeta(ctx, tx, s.id, false)
		if err != nil {
			return err
		}
		if m.Title != "" {
			s.titled.Store(true)
			return nil
		}
		var earlier bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM messages m JOIN branches b
				ON b.session_id = m.session_id AND b.branch_id = m.branch_id AND b.parent_id IS NULL
			WHERE m.session_id = $1 AND m.seq < $2 AND m.kind & 1 <> 0)`, s.id, before).Scan(&earlier); err != nil {
			return err
		}
		if earlier { // a prompt went by: the user cleared the title
			s.titled.Store(true)
			return nil
		}
		m.Title, m.Updated = title, now()
		if err := putMeta(ctx, tx, s.id, m); err != nil {
			return err
		}
		s.titled.Store(true)
		return s.st.record(ctx, tx, cs, backing.Change{Kind: backing.MetaChanged, Session: s.id})
	})
	if err != nil {
		s.st.logf("session %s: title from its first prompt: %v", s.id, err)
	}
}
