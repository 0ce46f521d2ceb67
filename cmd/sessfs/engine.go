package main

import (
	"fmt"
	"io"
	"os"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

// engine.go is the one place the command line names an engine; the rest
// of it, and fsnode beneath it, use backing's contract alone. --store
// names a folder, the file engine's store (a postgres:// URL will name
// the PostgreSQL engine here).

// defaultStore is the store a command uses without --store.
func defaultStore() (string, error) { return filestore.DefaultRoot() }

// openStore opens the store at location. durable false lets appends
// return before their messages reach the disk (mount --sync none); a
// daemon (a mount) keeps the search index up to date as it goes, so that
// searches through it answer at once. What the store reports on its own
// (an index rebuilt) goes to stderr, a line each; a command shows a
// build of the index it waits for as progress on a terminal.
func openStore(location string, durable, daemon bool) (backing.Store, error) {
	opts := filestore.Options{Indexing: daemon, Logf: func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, format+"\n", args...)
	}}
	if !daemon {
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

// writeFileAtomic writes a file the command line makes (export -o) whole
// or not at all, with the file engine's atomic replace: one
// implementation of temp file, fsync, rename and folder fsync.
func writeFileAtomic(path string, mode os.FileMode, write func(io.Writer) error) error {
	return filestore.WriteFileAtomic(path, mode, write)
}

// storeFormat is the version of the file engine's format on disk, which
// sessfs version reports.
const storeFormat = filestore.FormatVersion
