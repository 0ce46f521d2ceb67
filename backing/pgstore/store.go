package pgstore

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/sessfs/sessfs/backing"
)

// DefaultMaxMessage is the largest message an append accepts, in bytes:
// the file engine's, so that a session moves between engines whole.
const DefaultMaxMessage = 64 << 20

// DefaultTimeout bounds every call to the database: an append that cannot
// reach it fails rather than hang a writer.
const DefaultTimeout = 30 * time.Second

// Options tune a Store; the zero value is the default.
type Options struct {
	MaxMessage int64         // 0 means DefaultMaxMessage
	Timeout    time.Duration // 0 means DefaultTimeout
	// Async lets a commit return before the server flushed its WAL
	// (synchronous_commit off): a crash of the server may lose the last
	// appends, never corrupt the store (mount --sync none).
	Async bool
	// OutageWait is how long a read waits for a database that cannot
	// be reached at all (restarting, failing over) before it fails; 0
	// fails at once. A mount waits (its readers, tail -f among them,
	// cannot try again); a command fails at once and says why.
	OutageWait time.Duration
	// KeepRows keeps sessions' branch rows and states between calls,
	// while the change feed is caught up (rowcache.go): the change feed
	// then listens from Open to Close, on a connection of its own. For a
	// daemon, whose every lookup and open would otherwise ask for them.
	KeepRows bool
	// Logf reports what a user should hear of and no call returns (the
	// change feed's connection lost and found again); nil is silence.
	Logf func(format string, args ...any)
}

// Store is a store in a PostgreSQL database. It is safe for concurrent
// use, and any number of processes on any number of machines may open
// the same database at once.
type Store struct {
	pool *pgxpool.Pool
	loc  string
	opts Options
	// origin marks the changes this Store makes: the feed reports them
	// from the call that made them, and its listener skips them.
	origin string

	mu       sync.Mutex
	sessions map[string]*Session // by id: one handle per session, sharing its indexes

	feed feed // the change feed (feed.go)

	// Whether sessions may keep their rows, and the epoch that drops
	// them all at once (rowcache.go).
	cacheOn    atomic.Bool
	cacheEpoch atomic.Uint64
}

// The PostgreSQL engine implements the contract whole, and search, fsck
// and sweep.
var (
	_ backing.Store   = (*Store)(nil)
	_ backing.Session = (*Session)(nil)
	_ backing.View    = (*View)(nil)
	_ backing.Finder  = (*Store)(nil)
	_ backing.Checker = (*Store)(nil)
	_ backing.Sweeper = (*Store)(nil)
)

// IsURL reports whether location names a PostgreSQL database (a
// postgres:// or postgresql:// URL) rather than a folder.
func IsURL(location string) bool {
	u, err := url.Parse(location)
	return err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql")
}

// Open opens the store in the database at dsn (a postgres:// URL or a
// libpq key=value string), creating or upgrading its schema (Migrate)
// first. It reads nothing of the sessions, so it costs the same for any
// store size.
func Open(dsn string, opts Options) (*Store, error) {
	if opts.MaxMessage <= 0 {
		opts.MaxMessage = DefaultMaxMessage
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("%w: store %s: %v", backing.ErrInvalid, redact(dsn), err)
	}
	// Every statement is a lookup by key, whose plan the parameters do
	// not change: planning it once per connection, not per call, is most
	// of an append's time saved.
	cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_generic_plan"
	if opts.Async {
		cfg.ConnConfig.RuntimeParams["synchronous_commit"] = "off"
	}
	ctx, cancel := context.WithTimeout(context.Background(), opts.Timeout)
	defer cancel()
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", redact(dsn), err)
	}
	if _, err := Migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store %s: %w", redact(dsn), err)
	}
	st := &Store{pool: pool, loc: redact(dsn), opts: opts, origin: uuid.NewString(),
		sessions: map[string]*Session{}}
	st.hookFeed()
	if opts.KeepRows {
		st.Subscribe(func(backing.Change) {}) // the listener, until Close
	}
	return st, nil
}

// Close stops the change feed and closes the connections. The Store must
// not be used after.
func (st *Store) Close() {
	st.feed.stop()
	st.pool.Close()
}

// Pool is the store's connection pool, for Migrate and tools.
func (st *Store) Pool() *pgxpool.Pool { return st.pool }

// Location is the database's URL, its password left out.
func (st *Store) Location() string { return st.loc }

// MaxMessage is the largest message an append accepts, in bytes.
func (st *Store) MaxMessage() int64 { return st.opts.MaxMessage }

// ctx bounds one call to the database.
func (st *Store) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), st.opts.Timeout)
}

// nominalFree is the room Space reports as free: PostgreSQL does not say
// how much room its disk has left, and a statfs of 0 free would make
// programs refuse to write to the mount.
const nominalFree = 1 << 50

// Space reports the database's size as used, beside a nominal free room
// (see nominalFree).
func (st *Store) Space() (backing.Space, error) {
	var used int64
	if err := st.read(func(ctx context.Context) error {
		return st.pool.QueryRow(ctx, `SELECT pg_database_size(current_database())`).Scan(&used)
	}); err != nil {
		return backing.Space{}, err
	}
	const bs = 4096
	free := uint64(nominalFree / bs)
	return backing.Space{BlockSize: bs, Blocks: uint64(used)/bs + free, BlocksFree: free, BlocksAvail: free}, nil
}

// redact is dsn without its password, to show.
func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" {
		return dsn
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// validID reports whether id is a session or branch id as this engine
// makes them (a UUID in its canonical form): anything else names nothing,
// and is never sent to the database.
func validID(id string) bool {
	u, err := uuid.Parse(id)
	return err == nil && u.String() == id
}

func now() time.Time { return time.Now().UTC() }
