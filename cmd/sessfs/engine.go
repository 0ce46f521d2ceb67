package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
	"github.com/sessfs/sessfs/backing/importer"
	"github.com/sessfs/sessfs/backing/memstore"
	"github.com/sessfs/sessfs/backing/pgstore"
)

// engine.go is the one place the command line names an engine; the rest
// of it, and fsnode beneath it, use backing's contract alone. --store (or
// $SESSFS_STORE) names a folder, the file engine's store, or a
// postgres:// or postgresql:// URL, a PostgreSQL database (the
// PostgreSQL engine, for a store a team shares).

// isDatabase reports whether a store location names a database rather
// than a folder: no path rule (absolute paths, symlinks, a mount point
// inside the store) applies to it.
func isDatabase(location string) bool { return pgstore.IsURL(location) }

// absStore is a store location as the command passes it on (to a daemon,
// a unit file): a folder made absolute, a URL as it is.
func absStore(location string) (string, error) {
	if isDatabase(location) {
		return location, nil
	}
	return filepath.Abs(location)
}

// defaultStore is the store a command uses without --store.
func defaultStore() (string, error) { return filestore.DefaultRoot() }

// openStore opens the store at location. durable false lets appends
// return before their messages reach the disk (mount --sync none; for a
// database, before the server flushed its log); a
// daemon (a mount) keeps the search index up to date as it goes, so that
// searches through it answer at once, and its reads wait out a restart of
// a database (up to pgstore.DefaultTimeout) where a command's fail at once,
// and it keeps a database's rows between calls. What the store reports on its own
// (an index rebuilt) goes to stderr, a line each; a command shows a
// build of the index it waits for as progress on a terminal.
func openStore(location string, durable, daemon bool) (backing.Store, error) {
	if isDatabase(location) {
		var wait time.Duration
		if daemon {
			wait = pgstore.DefaultTimeout
		}
		return pgstore.Open(location, pgstore.Options{
			Async:      !durable,
			OutageWait: wait,
			KeepRows:   daemon,
			Logf: func(format string, args ...any) {
				fmt.Fprintf(os.Stderr, "sessfs: "+format+"\n", args...)
			},
		})
	}
	// A mount seals long logs in the background, never in a write's
	// answer; a command (import, sync) leaves what it appended sealed.
	opts := filestore.Options{Indexing: daemon, Seal: filestore.SealBackground, Logf: func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, format+"\n", args...)
	}}
	if !daemon {
		opts.Seal = filestore.SealAfterAppend
		p := &progress{verb: "building the search index: session"}
		opts.Building = func(done, total int) {
			p.show(done-1, total, "")
			if done == total {
				p.clear()
			}
		}
	}
	if !durable {
		opts.Sync = filestore.SyncNone
	}
	return filestore.Open(location, opts)
}

// ephemeralStore is where a mount keeps the sessions of MOUNT/tmp/: the
// daemon's memory, gone when it exits.
func ephemeralStore() backing.Store { return memstore.New(memstore.Options{}) }

// writeFileAtomic writes a file the command line makes (export -o) whole
// or not at all, with the file engine's atomic replace: one
// implementation of temp file, fsync, rename and folder fsync.
func writeFileAtomic(path string, mode os.FileMode, write func(io.Writer) error) error {
	return filestore.WriteFileAtomic(path, mode, write)
}

// migrateStore upgrades the file engine's store at root to storeFormat
// (sessfs migrate): imported lines rewritten by the importer's rule.
func migrateStore(root string, progress func(done, total int)) (filestore.MigrateResult, error) {
	return filestore.Migrate(root, filestore.MigrateOptions{Rewrite: importer.Slim, Progress: progress})
}

// abortMigration puts back a store whose migration was cut short.
func abortMigration(root string) error { return filestore.AbortMigration(root) }

// storeFormat is the version of the file engine's format on disk, which
// sessfs version reports.
const storeFormat = filestore.FormatVersion
