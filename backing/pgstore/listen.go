package pgstore

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sessfs/sessfs/backing"
)

const (
	// pollInterval is how long the listener waits for a notification
	// before it reads the changes table anyway: a notification lost (a
	// dropped connection, a failover) delays a change by this much.
	pollInterval = 500 * time.Millisecond
	// gapWait is how long a revision skipped over is looked for again. A
	// bigserial is taken when a change is written, not when it commits,
	// so a transaction that took revision r may commit after one that
	// took r+1; a revision never committed (a rolled back change) is
	// given up after this.
	gapWait = 30 * time.Second
	// maxGaps bounds the revisions looked for again.
	maxGaps = 10000
	// catchUpBatch is how many changes one query reads.
	catchUpBatch = 5000
	// pruneEvery is how often a listener deletes old changes.
	pruneEvery = 10 * time.Minute
)

// keepChanges is how many of the last changes are kept for listeners to
// catch up on (a variable for the tests). One further behind (a machine
// asleep through a busy night) has lost track, and reports everything it
// follows as changed (resync).
var keepChanges int64 = 100_000

// listener follows the other writers' changes for a store's subscribers:
// LISTEN on a connection of its own, and on each notification (or every
// pollInterval) the changes past the last revision it saw.
type listener struct {
	st         *Store
	stop, done chan struct{}
	last       int64               // the last revision read; -1 before the first read
	gaps       map[int64]time.Time // revisions skipped, and since when
}

// start reads the revision the database is at, so that what is changed
// from now on is reported, and starts listening.
func (l *listener) start() {
	l.last, l.gaps = -1, map[int64]time.Time{}
	ctx, cancel := l.st.ctx()
	defer cancel()
	if err := l.st.pool.QueryRow(ctx, `SELECT coalesce(max(revision), 0) FROM changes`).Scan(&l.last); err != nil {
		l.st.logf("change feed: %v (retrying)", err)
		l.last = -1
	}
	go l.run()
}

func (l *listener) run() {
	defer close(l.done)
	// Rows are kept only while this listener is caught up (rowcache.go).
	defer l.st.cacheLive(false)
	base, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-l.stop:
			cancel()
		case <-base.Done():
		}
	}()
	var conn *pgx.Conn
	defer func() {
		if conn != nil {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			conn.Close(ctx)
			cancel()
		}
	}()
	backoff, failing := 100*time.Millisecond, false
	var pruned time.Time
	for base.Err() == nil {
		if time.Since(pruned) > pruneEvery {
			if err := l.st.pruneChanges(base); err != nil && base.Err() == nil {
				l.st.logf("change feed: pruning old changes: %v", err)
			}
			pruned = time.Now()
		}
		if conn == nil {
			c, err := l.connect(base)
			if err != nil {
				if base.Err() != nil {
					return
				}
				if !failing {
					l.st.logf("change feed: %v (reconnecting)", err)
				}
				failing = true
				select {
				case <-base.Done():
					return
				case <-time.After(backoff):
				}
				backoff = min(2*backoff, 5*time.Second)
				continue
			}
			if failing {
				l.st.logf("change feed: connected again")
			}
			conn, backoff, failing = c, 100*time.Millisecond, false
		} else {
			ctx, cancelWait := context.WithTimeout(base, pollInterval)
			n, err := conn.WaitForNotification(ctx)
			cancelWait()
			if base.Err() != nil {
				return
			}
			if err != nil && (!errors.Is(err, context.DeadlineExceeded) || conn.IsClosed()) {
				l.st.logf("change feed: %v (reconnecting)", err)
				l.st.cacheLive(false)
				conn.Close(base)
				conn = nil
				continue
			}
			if err == nil && l.ownNext(n.Payload) {
				continue
			}
		}
		// After a connect too: what happened while nobody listened.
		if err := l.catchUp(base); err != nil {
			l.st.cacheLive(false)
			if base.Err() == nil {
				l.st.logf("change feed: %v", err)
			}
		} else {
			l.st.cacheLive(true)
		}
	}
}

// ownNext reports whether a notification's payload is this process's
// change at the next revision, with none skipped before: it was told when
// made, so the revision is taken as read, with no query. A mount's every
// append notifies its own listener; reading the change back for nothing
// took a query on another connection, each time.
func (l *listener) ownNext(payload string) bool {
	rev, origin, ok := strings.Cut(payload, " ")
	if !ok || origin != l.st.origin || len(l.gaps) > 0 || l.last < 0 {
		return false
	}
	r, err := strconv.ParseInt(rev, 10, 64)
	if err != nil || r != l.last+1 {
		return false
	}
	l.last = r
	return true
}

// connect opens the listener's connection and listens.
func (l *listener) connect(ctx context.Context) (*pgx.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, l.st.opts.Timeout)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, l.st.pool.Config().ConnConfig.Copy())
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, `LISTEN `+notifyChannel); err != nil {
		conn.Close(ctx)
		return nil, err
	}
	return conn, nil
}

// catchUp reads the changes past the last revision seen, and the
// revisions skipped before that may have committed since, and tells the
// subscribers of those other writers made.
func (l *listener) catchUp(base context.Context) error {
	ctx, cancel := context.WithTimeout(base, l.st.opts.Timeout)
	defer cancel()
	if l.last < 0 {
		return l.st.pool.QueryRow(ctx, `SELECT coalesce(max(revision), 0) FROM changes`).Scan(&l.last)
	}
	for {
		gaps := make([]int64, 0, len(l.gaps))
		for r, since := range l.gaps {
			if time.Since(since) > gapWait {
				delete(l.gaps, r)
				continue
			}
			gaps = append(gaps, r)
		}
		slices.Sort(gaps)
		rows, err := l.st.pool.Query(ctx, `SELECT revision, session_id::text, kind, coalesce(branch_id::text, ''),
				coalesce(len, -1), origin::text
			FROM changes WHERE revision > $1 OR revision = ANY($2) ORDER BY revision LIMIT $3`,
			l.last, gaps, catchUpBatch)
		if err != nil {
			return err
		}
		type row struct {
			rev       int64
			c         backing.Change
			origin    string
			kind, len int64
		}
		var got []row
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.rev, &r.c.Session, &r.kind, &r.c.Branch, &r.len, &r.origin); err != nil {
				rows.Close()
				return err
			}
			r.c.Kind, r.c.Len = backing.ChangeKind(r.kind), int(r.len)
			got = append(got, r)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if len(got) > 0 && got[0].rev > l.last+1 {
			// A jump: revisions taken and not committed yet (gaps), or
			// deleted by a prune before this listener read them.
			var prunedTo int64
			if err := l.st.pool.QueryRow(ctx, `SELECT coalesce(max(value::bigint), 0) FROM config
				WHERE key = 'changes_pruned_to'`).Scan(&prunedTo); err != nil {
				return err
			}
			if prunedTo > l.last {
				return l.resync(ctx)
			}
		}
		for _, r := range got {
			if _, ok := l.gaps[r.rev]; ok {
				delete(l.gaps, r.rev)
			} else if r.rev > l.last {
				for g := l.last + 1; g < r.rev && len(l.gaps) < maxGaps; g++ {
					l.gaps[g] = time.Now()
				}
				l.last = r.rev
			}
			if r.origin != l.st.origin {
				l.st.deliver(r.c)
			}
		}
		if len(got) < catchUpBatch {
			return nil
		}
	}
}

// resync tells the subscribers that anything may have changed, when the
// changes since the last one read are gone: the names, and in each
// followed session its meta, its branches and every branch's messages. It
// starts again from the revision the database is at.
func (l *listener) resync(ctx context.Context) error {
	if err := l.st.pool.QueryRow(ctx, `SELECT coalesce(max(revision), 0) FROM changes`).Scan(&l.last); err != nil {
		return err
	}
	clear(l.gaps)
	l.st.deliver(backing.Change{Kind: backing.NamesChanged})
	ids := l.st.feed.FollowedIDs()
	if len(ids) == 0 {
		return nil
	}
	rows, err := l.st.pool.Query(ctx, `SELECT session_id::text, branch_id::text FROM branches
		WHERE session_id = ANY($1::uuid[]) AND deleted_at IS NULL`, ids)
	if err != nil {
		return err
	}
	var id, branch string
	var appended []backing.Change
	if _, err := pgx.ForEachRow(rows, []any{&id, &branch}, func() error {
		appended = append(appended, backing.Change{Kind: backing.Appended, Session: id, Branch: branch, Len: -1})
		return nil
	}); err != nil {
		return err
	}
	for _, id := range ids {
		l.st.deliver(backing.Change{Kind: backing.MetaChanged, Session: id})
		l.st.deliver(backing.Change{Kind: backing.BranchesChanged, Session: id})
	}
	for _, c := range appended {
		l.st.deliver(c)
	}
	return nil
}

// pruneChanges deletes the changes older than the last keepChanges, but
// the last change of a name (NamesChanged reads it), and records how far
// it deleted, so that a listener further behind knows it lost track.
func (st *Store) pruneChanges(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, st.opts.Timeout)
	defer cancel()
	return pgx.BeginFunc(ctx, st.pool, func(tx pgx.Tx) error {
		var bound int64
		if err := tx.QueryRow(ctx, `SELECT coalesce(max(revision), 0) - $1 FROM changes`, keepChanges).Scan(&bound); err != nil {
			return err
		}
		if bound <= 0 {
			return nil
		}
		tag, err := tx.Exec(ctx, `DELETE FROM changes WHERE revision <= $1
			AND revision <> (SELECT coalesce(max(revision), 0) FROM changes WHERE kind = 4)`, bound)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO config VALUES ('changes_pruned_to', $1::bigint::text)
			ON CONFLICT (key) DO UPDATE SET value = greatest(config.value::bigint, excluded.value::bigint)::text`, bound)
		return err
	})
}
