package pgstore

import (
	"context"
	"errors"
	"io"
	"net"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/sessfs/sessfs/backing"
)

// A pooled connection the server has cut (a restart, a failover,
// pg_terminate_backend) is found dead only when it is used: the pool
// pings those idle for more than a second, not the others. So a call
// that meets a dead connection runs again, on another: a read whatever
// the failure of the connection, a write only when nothing of it reached
// the server (pgconn.SafeToRetry), so that it is never done twice. An
// append is the exception: it runs again whatever the failure, as a
// retry by its messages' ids (AppendID).

// attempts is how many times a call runs at most.
const attempts = 3

// read runs fn, a call that changes nothing, again when its connection
// was lost; and while the database cannot be reached at all (restarting,
// failing over), again until it can, for up to Options.OutageWait. So a
// reader of a mount (cat, ls, tail -f) waits out a restart instead of
// failing with EIO, which tail -f never recovers from: it gives the file
// up. A write does not wait: its writer hears at once, and decides.
func (st *Store) read(fn func(ctx context.Context) error) error {
	deadline := time.Now().Add(st.opts.OutageWait)
	pause := 50 * time.Millisecond
	for {
		err := st.readNow(fn)
		if !errors.Is(err, backing.ErrUnavailable) || time.Now().Add(pause).After(deadline) {
			return err
		}
		time.Sleep(pause)
		pause = min(2*pause, time.Second)
	}
}

// readNow is read without the wait, for the reads a write makes first:
// its writer hears at once that the database is away.
func (st *Store) readNow(fn func(ctx context.Context) error) error {
	return st.again(fn, lostConnection)
}

// write runs fn, a call that changes the store, again when it failed
// before the server saw any of it.
func (st *Store) write(fn func(ctx context.Context) error) error {
	return st.again(fn, pgconn.SafeToRetry)
}

// again runs fn until it succeeds, fails for a reason retry does not
// take, or has run attempts times. One deadline bounds all the attempts:
// Timeout is the most a caller waits, however many it takes.
func (st *Store) again(fn func(ctx context.Context) error, retry func(error) bool) error {
	ctx, cancel := st.ctx()
	defer cancel()
	for i := 1; ; i++ {
		err := fn(ctx)
		if err == nil {
			return nil
		}
		if lostConnection(err) {
			// What cut this connection (a restart, a failover) most
			// likely cut the pool's idle ones too: the next attempt
			// dials a new one rather than meet another dead one.
			st.pool.Reset()
		}
		if i == attempts || !retry(err) || ctx.Err() != nil {
			return st.unreachable(err)
		}
	}
}

// unreachable is err, when it is the loss of the database or its
// silence for the whole Timeout (a network cut, a host gone), as
// backing.ErrUnavailable: the cause (the socket's ENOENT when the server
// is down) is kept in the message only, never for errors.Is, where it
// would read as "no such session".
func (st *Store) unreachable(err error) error {
	switch {
	case lostConnection(err):
		return backing.Sentencef(backing.ErrUnavailable, "the database cannot be reached: %v", err)
	case errors.Is(err, context.DeadlineExceeded):
		return backing.Sentencef(backing.ErrUnavailable, "the database did not answer within %v: %v", st.opts.Timeout, err)
	}
	return err
}

// lostConnection reports whether err is the loss of the connection rather
// than an answer of the server's (a bad statement, a constraint).
func lostConnection(err error) bool {
	if pgconn.SafeToRetry(err) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// 57P01-57P03: the server is shutting down or went away;
		// class 08: connection exceptions.
		return pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03" || pe.Code[:2] == "08"
	}
	var ne net.Error
	return errors.As(err, &ne) && !ne.Timeout()
}
