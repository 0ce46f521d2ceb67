package filestore

import (
	"database/sql"
	"errors"
	"fmt"
	"log"
	"net/url"
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/sessfs/sessfs/backing"
)

// The search index (backing.Finder): a SQLite database beside the store,
// index/search.db, with SQLite's full-text search (FTS5) over what a person
// reads of each message, and a catalog row for every session. It is
// derived and never the truth: every call checks it is still the file it
// opened (it may have been deleted), catches up with what changed since
// it last looked (dirty marks, index_dirty.go, and the names folders,
// index_names.go), and rebuilds it whole when it is missing or damaged,
// saying so once. Rows are committed with the checkpoint they advance
// (how many of a branch's messages are indexed) in one transaction, in
// WAL mode, so a crash at any point leaves an index that resumes where it
// stopped. Several processes may use it at once: SQLite serialises the
// writers, and a checkpoint read inside the writing transaction keeps two
// of them from indexing a message twice.

// indexSchema is the version of the tables below; an index of another
// version is thrown away and rebuilt.
const indexSchema = "4"

var indexTables = []string{
	`CREATE TABLE info(key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
	`CREATE TABLE sessions(
		id TEXT PRIMARY KEY, name TEXT NOT NULL, state TEXT NOT NULL,
		title TEXT NOT NULL, agent TEXT NOT NULL, project TEXT NOT NULL, tags TEXT NOT NULL,
		created INTEGER NOT NULL, last_activity INTEGER NOT NULL,
		messages INTEGER NOT NULL, bytes INTEGER NOT NULL, default_branch TEXT NOT NULL)`,
	`CREATE TABLE branches(
		id TEXT PRIMARY KEY, session TEXT NOT NULL, name TEXT NOT NULL,
		indexed INTEGER NOT NULL, bytes INTEGER NOT NULL,
		model TEXT NOT NULL)`, // the model in effect at the checkpoint (backing.Stream)
	`CREATE INDEX branches_session ON branches(session)`,
	// One row a message with text or usage, and one of no branch (pos -1)
	// for each session's title and tags; row is its rowid in text. The
	// usage is what the message added to its session's tally, under the
	// response's key (backing.Tally).
	`CREATE TABLE messages(
		row INTEGER PRIMARY KEY, session TEXT NOT NULL, branch TEXT NOT NULL,
		pos INTEGER NOT NULL, turn INTEGER NOT NULL, role TEXT NOT NULL, ts INTEGER NOT NULL,
		model TEXT NOT NULL, ukey TEXT NOT NULL,
		input INTEGER NOT NULL, output INTEGER NOT NULL, cache_read INTEGER NOT NULL,
		cache_write INTEGER NOT NULL, reasoning INTEGER NOT NULL)`,
	`CREATE INDEX messages_branch ON messages(branch, pos)`,
	`CREATE INDEX messages_ukey ON messages(session, ukey) WHERE ukey != ''`,
	// What each session spent, by model: the sum of its messages' usage,
	// kept as they are indexed, for the catalog.
	`CREATE TABLE spend(session TEXT NOT NULL, model TEXT NOT NULL,
		input INTEGER NOT NULL, output INTEGER NOT NULL, cache_read INTEGER NOT NULL,
		cache_write INTEGER NOT NULL, reasoning INTEGER NOT NULL, PRIMARY KEY (session, model))`,
	// body: a message's text (backing.SearchText), or a session's title
	// and tags. remove_diacritics: "cafe" finds "café".
	`CREATE VIRTUAL TABLE text USING fts5(body, tokenize = 'unicode61 remove_diacritics 2')`,
	// Merge segments 16 at a time, not 4: a build spends a third of its
	// time merging, and this cuts it (1.17× in make bench, row 11a) with
	// no query slower. An index made before keeps 4, which is as right.
	`INSERT INTO text(text, rank) VALUES ('automerge', 16)`,
}

// index is a store's search index, opened on first use.
type index struct {
	st *Store

	mu         sync.Mutex // held by every use: one catch-up at a time in this process
	db         *sql.DB
	ino        uint64    // of the file opened: another means it was deleted or replaced
	namesStamp time.Time // the names folders as last reconciled by this process
	taken      int       // marks taken, to name them uniquely
	said       bool      // a rebuild was reported

	catalog *catalogCache // nil: to be read again (index_catalog.go)

	kickMu     sync.Mutex
	background bool // Options.Indexing: catch up soon after each change
	kicked     bool // a catch-up is scheduled
}

func (x *index) path() string { return x.st.path("index", "search.db") }

// use runs fn with an index that is open, whole and caught up. An index
// found damaged, on opening or by fn, is rebuilt once and fn run again.
func (x *index) use(fn func(db *sql.DB) error) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	err := x.ready()
	if err == nil {
		err = fn(x.db)
	}
	if !damaged(err) {
		return err
	}
	x.reset(fmt.Sprintf("it is damaged (%v)", err))
	if err := x.ready(); err != nil {
		return err
	}
	return fn(x.db)
}

// ready opens the index, builds it if it is new, and catches it up.
func (x *index) ready() error {
	if x.db != nil {
		if fi, err := os.Stat(x.path()); err != nil || ino(fi) != x.ino {
			x.close()
			x.notice("it was deleted")
		}
	}
	if x.db == nil {
		if err := x.open(); err != nil {
			return err
		}
	}
	var complete string
	x.db.QueryRow(`SELECT value FROM info WHERE key = 'complete'`).Scan(&complete)
	if complete != "yes" {
		// A command's first search of a store builds the index quietly:
		// that is its first use, not a fault. A mount says it, in its log,
		// as it says every rebuild.
		if x.background {
			x.notice("it is missing")
		}
		return x.write(func(w *writer) error { return w.build(x.st.opts.Building) })
	}
	// Most queries find nothing to do: no write transaction for them,
	// which would queue the readers of every process behind each other.
	marks, err := x.st.dirtyMarks()
	if err != nil {
		return err
	}
	if len(marks) == 0 && x.namesFresh(x.db, x.st.NamesChanged()) {
		return nil
	}
	return x.write(func(w *writer) error {
		if err := w.reconcileNames(); err != nil {
			return err
		}
		return w.catchUpMarked()
	})
}

// notice says once per process that the index is being rebuilt, and why.
func (x *index) notice(why string) {
	if !x.said {
		x.said = true
		x.st.logf("sessfs: search index %s: %s; rebuilding it from the store", x.path(), why)
	}
}

func (x *index) open() error {
	if err := mkdirExisting(x.st.path("index")); err != nil {
		return err
	}
	db, err := openIndexDB(x.path())
	if err == nil {
		err = checkSchema(db)
	}
	if damaged(err) {
		if db != nil {
			db.Close()
		}
		x.notice(fmt.Sprintf("it is damaged (%v)", err))
		removeIndexFiles(x.path())
		db, err = openIndexDB(x.path())
		if err == nil {
			err = checkSchema(db)
		}
	}
	if err != nil {
		if db != nil {
			db.Close()
		}
		return fmt.Errorf("search index %s: %w", x.path(), err)
	}
	fi, err := os.Stat(x.path())
	if err != nil {
		db.Close()
		return err
	}
	x.db, x.ino, x.namesStamp = db, ino(fi), time.Time{}
	return nil
}

// walLimit is the size the index's -wal file is cut back to when SQLite
// resets it (journal_size_limit).
const walLimit = 4 << 20

func openIndexDB(path string) (*sql.DB, error) {
	// Made here so that it has the store's mode: SQLite would make it
	// 0644, and gives its -wal and -shm files the mode of this one.
	if f, err := openFile(path, os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW, fileMode); err != nil {
		return nil, err
	} else {
		f.Close()
	}
	u := url.URL{Scheme: "file", Path: path}
	db, err := sql.Open("sqlite", u.String()+
		"?_pragma=busy_timeout(30000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"+
		// The WAL grows to the largest transaction (a long session's
		// first indexing: 33 MB at bench-scale 200M) and SQLite keeps the
		// file that size after checkpoints unless told to cut it back.
		fmt.Sprintf("&_pragma=journal_size_limit(%d)", walLimit)+
		"&_txlock=immediate")
	if err != nil {
		return nil, err
	}
	// One connection: every use holds index.mu anyway, and data_version
	// tells commits of other processes only to a connection that stays.
	db.SetMaxOpenConns(1)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// checkSchema makes the tables of a new index, and empties one of another
// schema version, to be built again.
func checkSchema(db *sql.DB) error {
	var v string
	err := db.QueryRow(`SELECT value FROM info WHERE key = 'schema'`).Scan(&v)
	if err == nil && v == indexSchema {
		return nil
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, t := range []string{"info", "sessions", "branches", "messages", "spend", "vocab", "text"} {
		if _, err := tx.Exec(`DROP TABLE IF EXISTS ` + t); err != nil {
			return err
		}
	}
	for _, ddl := range indexTables {
		if _, err := tx.Exec(ddl); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(`INSERT INTO info VALUES ('schema', ?)`, indexSchema); err != nil {
		return err
	}
	return tx.Commit()
}

// reset throws the index away, to be built again by the next ready.
func (x *index) reset(why string) {
	x.close()
	x.notice(why)
	removeIndexFiles(x.path())
}

func (x *index) close() {
	if x.db != nil {
		x.db.Close()
		x.db = nil
	}
	x.catalog = nil
}

func removeIndexFiles(path string) {
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		remove(path + suffix)
	}
}

// damaged reports an error that says the database file is not a good one.
func damaged(err error) bool {
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code() & 0xff {
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return true
	}
	return false
}

func ino(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino
	}
	return 0
}

// logf reports what a user should know and no call returns.
func (st *Store) logf(format string, args ...any) {
	if st.opts.Logf != nil {
		st.opts.Logf(format, args...)
		return
	}
	log.Printf(format, args...)
}

var _ backing.Finder = (*Store)(nil)

// Search answers a query from the index; see backing.Finder.
func (st *Store) Search(q backing.Query) ([]backing.Hit, error) {
	terms, err := backing.ParseQuery(q.Text)
	if err != nil {
		return nil, err
	}
	var hits []backing.Hit
	err = st.idx.use(func(db *sql.DB) error {
		hits, err = search(db, q, terms)
		return err
	})
	return hits, err
}

// Reindex throws the index away and builds it again; see backing.Finder.
func (st *Store) Reindex(progress func(done, total int)) error {
	x := &st.idx
	x.mu.Lock()
	defer x.mu.Unlock()
	x.close()
	removeIndexFiles(x.path())
	x.said = true // asked for: nothing to report
	if err := x.open(); err != nil {
		return err
	}
	return x.write(func(w *writer) error { return w.build(progress) })
}
