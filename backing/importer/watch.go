package importer

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/fsnotify/fsnotify"
)

// settle is how long Watch gathers the changes that follow one (an agent
// writes a line in several writes) before it imports them: well within
// the second in which a new line must show.
const settle = 100 * time.Millisecond

// Watch follows the Syncer's folders until stop is closed. It watches
// them first (inotify, every folder below them too, and each folder made
// later), then catches up with a Scan of what changed while it was not
// running, and from then on imports each file soon after it changes and
// records a deleted one as gone. It scans again every rescan, in case the
// kernel dropped events (it says so, and Watch scans at once then).
// scanned gets the counts of each Scan. Watch's error is that of starting
// to watch; what goes wrong later is reported and Watch goes on.
func (y *Syncer) Watch(stop <-chan struct{}, rescan time.Duration, scanned func(ScanCounts, error)) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	y.imp.waitBegun = true
	defer func() { y.imp.waitBegun = false }()
	for _, f := range y.folders {
		if _, ok := y.awaited[f]; ok {
			continue // await's
		}
		if err := y.watchTree(w, f); err != nil {
			return err
		}
	}
	y.await(w, nil)
	scanned(y.Scan())
	tick := time.NewTicker(rescan)
	defer tick.Stop()
	pending := map[string]bool{}
	var flush <-chan time.Time
	for {
		select {
		case <-stop:
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
					if y.inFolders(ev.Name) {
						// Files may be in it before its watch is: take them.
						if err := y.watchTree(w, ev.Name); err != nil {
							y.report(Result{Path: ev.Name, Err: err})
						}
						queueFiles(pending, ev.Name)
					}
					y.await(w, pending) // it may be, or lead to, an awaited folder
					if flush == nil {
						flush = time.After(settle)
					}
					continue
				}
			}
			if !y.inFolders(ev.Name) {
				continue // a watch on the way to an awaited folder
			}
			if ev.Has(fsnotify.Chmod) && !ev.Has(fsnotify.Write) {
				continue
			}
			pending[ev.Name] = true
			if flush == nil {
				flush = time.After(settle)
			}
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				scanned(y.Scan())
			} else {
				y.report(Result{Err: err})
			}
		case <-flush:
			flush = nil
			y.changed(pending)
			clear(pending)
			// An awaited folder deleted meanwhile is awaited again.
			if y.await(w, pending); len(pending) > 0 {
				flush = time.After(settle)
			}
		case <-tick.C:
			scanned(y.Scan())
		}
	}
}

// changed imports the files of paths that are there and records those
// that are not as gone.
func (y *Syncer) changed(paths map[string]bool) {
	stored := false
	for _, p := range slices.Sorted(maps.Keys(paths)) {
		fi, err := os.Stat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			y.gone(p)
		case err != nil || fi.IsDir() || !isSourceName(filepath.Base(p)):
			// unreadable, a folder (its files come on their own), or not
			// a session file: nothing to import
		default:
			stored = y.file(p) == fileStored || stored
		}
	}
	y.linkForks(stored)
}

// await watches each awaited folder that has appeared since, and queues
// its files into pending (when not nil: the first Scan takes them); for
// one missing, it watches the nearest folder above it that exists, to
// hear of the next folder on the way.
func (y *Syncer) await(w *fsnotify.Watcher, pending map[string]bool) {
	for f := range y.awaited {
		if fi, err := os.Stat(f); err == nil && fi.IsDir() {
			if y.awaited[f] { // not watched yet
				y.awaited[f] = false
				if err := y.watchTree(w, f); err != nil {
					y.report(Result{Path: f, Err: err})
				}
				if pending != nil {
					queueFiles(pending, f)
				}
			}
			continue
		}
		y.awaited[f] = true
		for up := filepath.Dir(f); ; up = filepath.Dir(up) {
			if fi, err := os.Stat(up); err == nil && fi.IsDir() {
				if err := w.Add(up); err != nil {
					y.report(Result{Path: up, Err: err})
				}
				break
			}
			if up == filepath.Dir(up) {
				break
			}
		}
	}
}

// inFolders says whether path is one of the Syncer's folders, or in one.
func (y *Syncer) inFolders(path string) bool {
	return within(path, y.folders)
}

// queueFiles adds the source files below dir to pending.
func queueFiles(pending map[string]bool, dir string) {
	if files, err := SourceFiles([]string{dir}); err == nil {
		for _, f := range files {
			pending[f] = true
		}
	}
}

// watchTree watches folder dir and every folder below it.
func (y *Syncer) watchTree(w *fsnotify.Watcher, dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path != dir && errors.Is(err, fs.ErrNotExist) {
				return nil // gone meanwhile
			}
			return err
		}
		if d.IsDir() {
			return w.Add(path)
		}
		return nil
	})
}
