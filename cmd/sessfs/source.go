package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/importer"
)

// A mount of an agent's own folder (mount --source) serves a store kept
// beside the user's, in the cache folder, that mirrors the folder: every
// session file is imported into it at mount time and again whenever it
// changes, so the same tree shows another agent's sessions read-only, and
// keeps up as the agent appends. The user's store is never touched.

// sourceCache is the store that mirrors folder dir of format f.
func sourceCache(f, dir string) (string, error) {
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no cache folder: set XDG_CACHE_HOME or HOME (%w)", err)
		}
		base = filepath.Join(home, ".cache")
	}
	sum := sha256.Sum256([]byte(f + "\x00" + dir))
	return filepath.Join(base, "sessfs", "source-"+hex.EncodeToString(sum[:6])), nil
}

// mirror keeps a store in step with a folder of agent session files.
type mirror struct {
	st     *backing.Store
	run    *importRun // imports into st
	dir    string
	format importer.Format
	seen   map[string]fileStamp
	warn   func(error)
}

type fileStamp struct {
	size  int64
	mtime time.Time
}

// sync imports every file that is new or changed since the last sync. A
// file that changed other than by growing (the agent rewrote it) replaces
// its session: the old one goes to the cache store's trash.
func (m *mirror) sync() {
	files, err := sourceFiles([]string{m.dir})
	if err != nil {
		m.warn(err)
		return
	}
	imported := false
	for _, path := range files {
		fi, err := os.Stat(path)
		if err != nil {
			continue // gone meanwhile
		}
		stamp := fileStamp{fi.Size(), fi.ModTime()}
		if m.seen[path] == stamp {
			continue
		}
		name, stored, err := m.run.file(path, m.format)
		if errors.Is(err, errRewritten) {
			// The agent rewrote the file: the mirror shows it anew.
			if terr := m.st.Trash(name); terr == nil {
				_, stored, err = m.run.file(path, m.format)
			}
		}
		// Tried once a change: a file that cannot be imported (one the
		// agent has only begun, another agent's) is warned of once, and
		// tried again when it changes.
		m.seen[path] = stamp
		if err != nil {
			m.warn(fmt.Errorf("%s: %w", path, err))
			continue
		}
		imported = imported || stored
	}
	if !imported {
		return
	}
	if err := m.run.linkForks(); err != nil {
		m.warn(err)
	}
}

// follow syncs every interval until stop is closed.
func (m *mirror) follow(interval time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			m.sync()
		}
	}
}
