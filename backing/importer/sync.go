package importer

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// Syncer keeps a store in step with folders of agent session files, for
// good: `sessfs sync` keeps the user's store so, and `mount --source` a
// store of its own in the cache. Every file is imported when the Syncer
// first sees it and again whenever it changes, so the store shows the
// agents' sessions and keeps up as they append. Nothing stored is ever
// lost to what an agent does to its files:
//   - a file deleted (an agent's cleanup) leaves its session as it was;
//     meta.json's source records when it was found gone;
//   - a file that changed other than by growing (rewritten) is stored
//     again as a new session, and the old one keeps what it was, with
//     "replaced_by" naming the new one (Options.Sync);
//   - a file moved (Codex archives a rollout) is the same source: its
//     session's origin follows it.
//
// A Syncer is not safe for concurrent use: Scan and Watch are called from
// one goroutine.
type Syncer struct {
	imp     *Importer
	folders []string // absolute and clean, links resolved where they exist
	// awaited are folders that may not exist yet (an agent's own, before
	// it first ran): Scan skips them while they do not, Watch waits for
	// them to appear. The value says Watch has no watch on it yet.
	awaited map[string]bool
	seen    map[string]fileStamp
	report  func(Result)
}

type fileStamp struct {
	size  int64
	mtime time.Time
}

// ScanCounts are what a Scan went through.
type ScanCounts struct {
	Files     int // source files found
	Unchanged int // of them, already stored whole: read and hashed, not decoded
	Stored    int // sessions created or grown
	Gone      int // sessions whose source was found deleted
	Failed    int // files that could not be imported
}

// NewSyncer returns a Syncer of folders that imports through imp (made
// with Options.Sync) and calls report with the Result of each file that
// stored something or failed, and of each source found gone (Result.Gone).
// A folder of folders that is missing is an error of Scan, but for those
// of awaited, which Scan skips until they appear.
func NewSyncer(imp *Importer, folders, awaited []string, report func(Result)) *Syncer {
	y := &Syncer{imp: imp, awaited: map[string]bool{}, seen: map[string]fileStamp{}, report: report}
	for _, f := range folders {
		y.folders = append(y.folders, absFolder(f))
	}
	for _, f := range awaited {
		f = absFolder(f)
		y.folders = append(y.folders, f)
		y.awaited[f] = true
	}
	return y
}

// absFolder is folder f as SourceFiles names the files in it: absolute,
// clean, its links resolved (when it exists).
func absFolder(f string) string {
	if a, err := filepath.Abs(f); err == nil {
		f = a
	}
	if real, err := filepath.EvalSymlinks(f); err == nil {
		f = real
	}
	return filepath.Clean(f)
}

// present are the Syncer's folders to scan now: all but the awaited ones
// that do not exist yet.
func (y *Syncer) present() []string {
	var out []string
	for _, f := range y.folders {
		if _, ok := y.awaited[f]; ok {
			if fi, err := os.Stat(f); err != nil || !fi.IsDir() {
				continue
			}
		}
		out = append(out, f)
	}
	return out
}

// Scan imports every file that is new or changed since the Syncer last
// saw it, then records the sources under its folders that are gone. Its
// error is that of listing the folders or reading the store's index of
// imports: then no source is taken for gone.
func (y *Syncer) Scan() (ScanCounts, error) {
	var c ScanCounts
	folders := y.present()
	files, err := SourceFiles(folders)
	if err != nil {
		return c, err
	}
	c.Files = len(files)
	present := make(map[string]bool, len(files))
	for _, path := range files {
		present[path] = true
		switch y.file(path) {
		case fileStored:
			c.Stored++
		case fileFailed:
			c.Failed++
		case fileUnchanged:
			c.Unchanged++
		}
	}
	y.linkForks(c.Stored > 0)
	gone, err := y.imp.goneBelow(folders, present)
	for _, r := range gone {
		y.report(r)
	}
	c.Gone = len(gone)
	return c, err
}

type fileOutcome int

const (
	fileUnchanged fileOutcome = iota
	fileStored
	fileFailed
)

// file imports path if it changed since the Syncer last saw it. A file
// tried is not tried again until it changes: one that cannot be imported
// (an agent has only begun it, another program's) is reported once.
func (y *Syncer) file(path string) fileOutcome {
	fi, err := os.Stat(path)
	if err != nil {
		return fileUnchanged // gone meanwhile: the gone check sees to it
	}
	stamp := fileStamp{fi.Size(), fi.ModTime()}
	if y.seen[path] == stamp {
		return fileUnchanged
	}
	r := y.imp.file(path)
	if r.Later {
		return fileUnchanged // not seen: the next change or scan takes it
	}
	y.seen[path] = stamp
	switch {
	case r.Err != nil:
		y.report(r)
		return fileFailed
	case r.Stored:
		y.report(r)
		return fileStored
	}
	return fileUnchanged
}

// gone records that the sources last found at path, or below it (a
// folder), are gone, if they are.
func (y *Syncer) gone(path string) {
	delete(y.seen, path)
	rs, err := y.imp.goneBelow([]string{path}, nil)
	for _, r := range rs {
		y.report(r)
	}
	if err != nil {
		y.report(Result{Path: path, Err: err})
	}
}

// linkForks links the sessions that came from another, once something was
// stored.
func (y *Syncer) linkForks(stored bool) {
	if !stored {
		return
	}
	if err := y.imp.linkForks(); err != nil {
		y.report(Result{Err: err})
	}
}

// goneBelow records in meta.json, of each session whose source was last
// found at one of roots or below it, not in present and no longer there
// (an agent deleted it), when it was found gone. The Results name the
// file and the session.
func (r *Importer) goneBelow(roots []string, present map[string]bool) ([]Result, error) {
	if err := r.load(); err != nil {
		return nil, err
	}
	now := time.Now().UTC().Format(time.RFC3339)
	var out []Result
	for _, e := range r.index {
		if e.gone || e.path == "" || present[e.path] || !within(e.path, roots) {
			continue
		}
		if _, err := os.Lstat(e.path); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		s, err := r.st.SessionByID(e.id)
		if err != nil {
			continue // removed meanwhile
		}
		m, err := s.Meta()
		if err != nil {
			return out, err
		}
		if err := setOrigin(s, m, func(o *Origin) { o.Gone = now }); err != nil {
			return out, err
		}
		e.gone = true
		out = append(out, Result{Path: e.path, Name: m.Name, Gone: true})
	}
	return out, nil
}

// seenAt notes that the source of session s (meta.json m) is at path,
// when the importer syncs: where it moved, or back after it was found
// gone. mtime, when not "", is the time of the file found stored whole:
// recorded for the quick check (unchanged) of a session imported before
// sessfs recorded it.
func (r *Importer) seenAt(s backing.Session, m backing.Meta, path, mtime string) error {
	o, _ := OriginOf(m)
	moved := r.opts.Sync && (o.Path != path || o.Gone != "")
	stamp := mtime != "" && o.MTime != mtime && o.Complete
	if !moved && !stamp {
		return nil
	}
	err := setOrigin(s, m, func(o *Origin) {
		if moved {
			o.Path, o.Gone = path, ""
		}
		if stamp {
			o.MTime = mtime
		}
	})
	if err != nil {
		return err
	}
	if e := r.index[o.key()]; e != nil && e.id == s.ID() {
		if moved {
			r.setPath(e, path)
			e.gone = false
		}
		if stamp {
			e.stamp = quickStamp{int64(*o.Bytes), mtime}
		}
	}
	return nil
}

// replace makes new the session of source k, old keeping what the source
// was: old's origin names new, and the index finds new from now on.
func (r *Importer) replace(k sourceKey, old, new backing.Session, newMeta backing.Meta) error {
	m, err := old.Meta()
	if err != nil {
		return err
	}
	if err := setOrigin(old, m, func(o *Origin) { o.ReplacedBy = new.ID() }); err != nil {
		return err
	}
	o, _ := OriginOf(newMeta)
	e := &indexed{id: new.ID(), parent: newMeta.Parent, forked: o.Forked, noMessages: o.NoMessages}
	r.index[k] = e
	r.setPath(e, o.Path)
	return nil
}

// setOrigin changes the origin meta.json m records for session s.
func setOrigin(s backing.Session, m backing.Meta, change func(*Origin)) error {
	o, _ := OriginOf(m)
	change(&o)
	raw, err := json.Marshal(o)
	if err != nil {
		return err
	}
	return s.SetExtra("source", raw)
}

// within says whether path is one of roots (absolute, clean) or inside
// one.
func within(path string, roots []string) bool {
	for _, f := range roots {
		if path == f || strings.HasPrefix(path, f+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
