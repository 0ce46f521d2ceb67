package filestore

import (
	"database/sql"
)

// writer is the one transaction through which the index changes. Every
// read of a catch-up goes through it too, so the checkpoints it reads are
// the ones it moves: SQLite's write lock (BEGIN IMMEDIATE) keeps other
// processes out meanwhile. It commits every writerBytes of indexed
// messages, so a long build keeps its progress through a crash and
// SQLite's full-text index is flushed in large segments, which is what
// makes it fast; the dirty marks a commit covers are dropped after it.
type writer struct {
	x     *index
	tx    *sql.Tx
	stmts map[string]*sql.Stmt // prepared in tx: the same few statements, thousands of times
	size  int64                // bytes indexed since the last commit
	drops []string             // dirty marks to drop once committed
	ahead map[chunkKey]*chunk  // the session being caught up, read ahead (index_ahead.go)
}

const writerBytes = 64 << 20

// write runs fn in a writer and commits what it did.
func (x *index) write(fn func(w *writer) error) error {
	w := &writer{x: x}
	if err := w.begin(); err != nil {
		return err
	}
	if err := fn(w); err != nil {
		w.tx.Rollback()
		return err
	}
	return w.commit()
}

func (w *writer) begin() error {
	tx, err := w.x.db.Begin()
	w.tx, w.stmts, w.size = tx, map[string]*sql.Stmt{}, 0
	return err
}

func (w *writer) commit() error {
	if err := w.tx.Commit(); err != nil {
		return err
	}
	w.x.catalog = nil
	for _, file := range w.drops {
		if err := w.x.st.dropMark(file); err != nil {
			return err
		}
	}
	w.drops = nil
	return nil
}

// grew counts n bytes indexed, and commits and goes on in a new
// transaction once they add up to writerBytes.
func (w *writer) grew(n int64) error {
	w.size += n
	if w.size < writerBytes {
		return nil
	}
	if err := w.commit(); err != nil {
		return err
	}
	return w.begin()
}

func (w *writer) stmt(q string) (*sql.Stmt, error) {
	if s := w.stmts[q]; s != nil {
		return s, nil
	}
	s, err := w.tx.Prepare(q)
	if err == nil {
		w.stmts[q] = s
	}
	return s, err
}

func (w *writer) exec(q string, args ...any) (sql.Result, error) {
	s, err := w.stmt(q)
	if err != nil {
		return nil, err
	}
	return s.Exec(args...)
}

// scan reads one row of q into dest: sql.ErrNoRows when there is none.
func (w *writer) scan(q string, args []any, dest ...any) error {
	s, err := w.stmt(q)
	if err != nil {
		return err
	}
	return s.QueryRow(args...).Scan(dest...)
}

func (w *writer) query(q string, args ...any) (*sql.Rows, error) {
	return w.tx.Query(q, args...)
}
