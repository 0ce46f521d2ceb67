package importer

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// Mirror keeps a store in step with a folder of agent session files, as
// mount --source does: every file is imported when Sync first sees it and
// again whenever it changes, so the store shows the agent's sessions and
// keeps up as the agent appends. A file that changed other than by
// growing (the agent rewrote it) replaces its session: the old one goes
// to the store's trash.
type Mirror struct {
	imp  *Importer
	dir  string
	seen map[string]fileStamp
	warn func(error)
}

type fileStamp struct {
	size  int64
	mtime time.Time
}

// NewMirror returns a Mirror of folder dir that imports through imp and
// reports what it cannot import to warn.
func NewMirror(imp *Importer, dir string, warn func(error)) *Mirror {
	return &Mirror{imp: imp, dir: dir, seen: map[string]fileStamp{}, warn: warn}
}

// Sync imports every file that is new or changed since the last Sync.
func (m *Mirror) Sync() {
	files, err := SourceFiles([]string{m.dir})
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
		r := m.imp.file(path)
		if errors.Is(r.Err, ErrRewritten) {
			// The agent rewrote the file: the mirror shows it anew.
			if terr := m.imp.st.Trash(r.Name); terr == nil {
				r = m.imp.file(path)
			}
		}
		// Tried once a change: a file that cannot be imported (one the
		// agent has only begun, another agent's) is warned of once, and
		// tried again when it changes.
		m.seen[path] = stamp
		if r.Err != nil {
			m.warn(fmt.Errorf("%s: %w", path, r.Err))
			continue
		}
		imported = imported || r.Stored
	}
	if !imported {
		return
	}
	if err := m.imp.linkForks(); err != nil {
		m.warn(err)
	}
}

// Follow calls Sync every interval until stop is closed.
func (m *Mirror) Follow(interval time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			m.Sync()
		}
	}
}
