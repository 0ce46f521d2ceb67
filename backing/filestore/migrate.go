package filestore

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/sessfs/sessfs/backing"
	"golang.org/x/sys/unix"
)

// A migration upgrades a store of an older format in place: sessfs
// migrate. It rewrites each session into a new copy beside it and swaps
// the two, keeping the old copy until every session is done (the way
// back: AbortMigration). Every step is a rename or the write of a new
// file, so a crash at any point leaves a state the next run recognises
// and finishes; while migrate/ exists, Open refuses the store.
//
//	migrate/from        the format the store had ("1")
//	migrate/tmp/<id>    a session's new copy being written
//	migrate/new/<id>    its new copy, whole, not yet swapped in
//	migrate/old/<id>    its old copy, swapped out, kept until the end
//
// A session's state follows from which of sessions/<id>, new/<id> and
// old/<id> exist (see migration.session); FORMAT says the new format from
// the start, so a sessfs of the old format refuses a half-migrated store.

// MigrateOptions says how a migration rewrites a store's lines.
type MigrateOptions struct {
	// Rewrite returns a log line in the new format, or the line itself
	// when it needs no change. It is given each complete line of every
	// log that is valid JSON; other lines are kept as they are.
	Rewrite func(line []byte) []byte
	// Progress, when set, is told after each session how many of how
	// many are done.
	Progress func(done, total int)
	// step, set by tests, is called before each step that changes the
	// disk; a test stops the migration there as a kill would.
	step func(what string)
}

// MigrateResult is what a migration did.
type MigrateResult struct {
	From     int   // the store's format before
	Current  bool  // nothing to do: the store is read as it is
	Sessions int   // sessions rewritten by this run
	Before   int64 // bytes of the logs this run rewrote, before
	After    int64 // and after
}

const migrateDir = "migrate"

type migration struct {
	root string
	o    MigrateOptions
	res  MigrateResult
}

func (m *migration) path(elem ...string) string {
	return filepath.Join(append([]string{m.root, migrateDir}, elem...)...)
}

func (m *migration) step(what string) {
	if m.o.step != nil {
		m.o.step(what)
	}
}

// Migrate upgrades the store at root to FormatVersion, or finishes a
// migration a crash cut short. A store already of this format is left as
// it is (From is FormatVersion). Nothing else may use the store while it
// runs: it holds the store's lock, and each session's lock while it
// rewrites that session, but a process that opened the store before would
// keep writing to the old copies.
func Migrate(root string, o MigrateOptions) (MigrateResult, error) {
	m := &migration{root: root, o: o}
	unlock, err := (&fileLock{path: filepath.Join(root, "lock")}).lock()
	if err != nil {
		return m.res, err
	}
	defer unlock()
	if err := removeAll(m.donePath()); err != nil { // a finish cut short
		return m.res, err
	}
	v, err := readFormat(filepath.Join(root, "FORMAT"))
	if err != nil {
		return m.res, fmt.Errorf("store %s: %w", root, err)
	}
	_, err = stat(m.path())
	pending := err == nil
	switch {
	case v > FormatVersion:
		return m.res, fmt.Errorf("%w: store %s has format %d, this sessfs knows up to %d; upgrade sessfs", backing.ErrFormat, root, v, FormatVersion)
	case v >= plainFormat && !pending:
		// Format 2 differs from 3 only in having no sealed log: read
		// as it is.
		m.res.From, m.res.Current = v, true
		return m.res, nil
	case v != 1 && !pending:
		return m.res, fmt.Errorf("%w: store %s has format %d, which this sessfs cannot migrate", backing.ErrFormat, root, v)
	}
	if !pending { // a run cut short goes on: what it did is already on disk
		if err := m.checkSpace(); err != nil {
			return m.res, err
		}
	}
	if m.res.From, err = m.begin(v, pending); err != nil {
		return m.res, err
	}
	ids, err := m.sessionIDs()
	if err != nil {
		return m.res, err
	}
	for i, id := range ids {
		if err := m.session(id); err != nil {
			return m.res, fmt.Errorf("session %s: %w", id, err)
		}
		if o.Progress != nil {
			o.Progress(i+1, len(ids))
		}
	}
	return m.res, m.finish()
}

// checkSpace refuses to start when the disk could fill midway: the new
// copies are written before any old one goes, so it needs about the
// sessions' size free (a little less, as the new format is smaller).
func (m *migration) checkSpace() error {
	need, err := treeSize(filepath.Join(m.root, "sessions"))
	if err != nil {
		return err
	}
	var sf unix.Statfs_t
	if err := unix.Statfs(m.root, &sf); err != nil {
		return &os.PathError{Op: "statfs", Path: m.root, Err: err}
	}
	if free := int64(sf.Bavail) * sf.Bsize; free < need+need/20 {
		return fmt.Errorf("migrating store %s needs about %d MB free on its disk (each session is written anew before its old copy goes) and %d MB are: %w",
			m.root, (need+need/20)>>20+1, free>>20, unix.ENOSPC)
	}
	return nil
}

// treeSize is the bytes of the regular files under root.
func treeSize(root string) (int64, error) {
	var n int64
	err := filepath.WalkDir(root, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		fi, err := d.Info()
		if err == nil {
			n += fi.Size()
		}
		return err
	})
	return n, err
}

// begin records the migration and sets FORMAT to the new format, or reads
// what an earlier run recorded.
func (m *migration) begin(v int, pending bool) (from int, err error) {
	from, err = migratedFrom(m.root)
	switch {
	case !pending || errors.Is(err, os.ErrNotExist):
		// Not begun, or cut short before it was recorded: FORMAT is
		// still the old one.
		from = v
	case err != nil:
		return 0, err
	}
	m.step("begin")
	for _, d := range []string{"", "tmp", "new", "old"} {
		if err := mkdirExisting(m.path(d)); err != nil {
			return 0, err
		}
	}
	if err := writeFileAtomic(m.path("from"), []byte(strconv.Itoa(from)+"\n")); err != nil {
		return 0, err
	}
	if err := syncDir(m.root); err != nil {
		return 0, err
	}
	m.step("format")
	return from, writeFileAtomic(filepath.Join(m.root, "FORMAT"), formatLine(FormatVersion))
}

// sessionIDs lists the sessions in sessions/ and those a cut-short run
// left in the middle of a swap, each once.
func (m *migration) sessionIDs() ([]string, error) {
	seen := map[string]bool{}
	var ids []string
	for _, d := range []string{filepath.Join(m.root, "sessions"), m.path("new"), m.path("old")} {
		ents, err := readDir(d)
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			if n := e.Name(); e.IsDir() && !strings.HasPrefix(n, ".") && !seen[n] {
				seen[n] = true
				ids = append(ids, n)
			}
		}
	}
	return ids, nil
}

// migratedFrom is the format a migration under way started from, as its
// first step recorded it (an error wrapping os.ErrNotExist before that).
func migratedFrom(root string) (int, error) {
	b, err := readFile(filepath.Join(root, migrateDir, "from"))
	if err != nil {
		return 0, err
	}
	v, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, fmt.Errorf("%s: %w", filepath.Join(root, migrateDir, "from"), err)
	}
	return v, nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// session migrates one session, from whatever state a cut-short run left.
func (m *migration) session(id string) error {
	live := filepath.Join(m.root, "sessions", id)
	tmp, nw, old := m.path("tmp", id), m.path("new", id), m.path("old", id)
	if exists(old) {
		switch {
		case exists(live): // swapped: done
			return nil
		case exists(nw): // swapped out, not yet in
			m.step("swap in")
			return m.swapIn(nw, live)
		}
		// An abort was bringing it back: put it back and start again.
		m.step("restore")
		if err := rename(old, live, unix.RENAME_NOREPLACE); err != nil {
			return err
		}
	}
	if !exists(nw) {
		if err := m.build(live, tmp); err != nil {
			return err
		}
		m.step("built")
		if err := rename(tmp, nw, unix.RENAME_NOREPLACE); err != nil {
			return err
		}
		if err := syncDir(m.path("new")); err != nil {
			return err
		}
		m.res.Sessions++
	}
	m.step("swap out")
	if err := rename(live, old, unix.RENAME_NOREPLACE); err != nil {
		return err
	}
	if err := syncDir(m.path("old")); err != nil {
		return err
	}
	m.step("swap in")
	return m.swapIn(nw, live)
}

func (m *migration) swapIn(nw, live string) error {
	if err := rename(nw, live, unix.RENAME_NOREPLACE); err != nil {
		return err
	}
	return syncDir(filepath.Dir(live))
}

// build writes the new copy of the session at from into to: every log
// rewritten line by line, every branch's fork point moved to where its
// line now starts in its parent's log, everything else copied.
func (m *migration) build(from, to string) error {
	m.step("build")
	if err := removeAll(to); err != nil {
		return err
	}
	// Hold the session's lock: a write under way finishes first.
	unlock, err := (&fileLock{path: filepath.Join(from, "lock")}).lock()
	if err != nil {
		return err
	}
	defer unlock()
	forks, err := forkPoints(from)
	if err != nil {
		return err
	}
	moved := map[string]map[int64]int64{} // branch id → old line start → new
	var branchFiles []string
	err = copyTree(from, to, func(rel string, src, dst *os.File) error {
		dir, name := filepath.Split(rel)
		id, ext := strings.TrimSuffix(name, filepath.Ext(name)), filepath.Ext(name)
		isLog := ext == ".jsonl" && (dir == "logs/" || dir == "trash/")
		if (dir == "branches/" || dir == "trash/") && ext == ".json" {
			branchFiles = append(branchFiles, rel)
		}
		if !isLog {
			_, err := io.Copy(dst, src)
			return err
		}
		mv, err := m.rewriteLog(src, dst, forks[id])
		moved[id] = mv
		return err
	})
	if err != nil {
		return err
	}
	for _, rel := range branchFiles {
		if err := moveForkPoint(filepath.Join(from, rel), filepath.Join(to, rel), moved); err != nil {
			return err
		}
	}
	return syncTree(to)
}

// forkPoints reads every branch file of the session (branches/ and
// trash/) and returns, by parent branch id, the fork points in its log.
func forkPoints(dir string) (map[string][]int64, error) {
	out := map[string][]int64{}
	for _, sub := range []string{"branches", "trash"} {
		ents, err := readDir(filepath.Join(dir, sub))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			if !strings.HasSuffix(e.Name(), ".json") || !e.Type().IsRegular() {
				continue
			}
			var b backing.Branch
			data, err := readFile(filepath.Join(dir, sub, e.Name()))
			if err != nil {
				return nil, err
			}
			if json.Unmarshal(data, &b) == nil && b.Parent != "" {
				out[b.Parent] = append(out[b.Parent], b.ParentOffset)
			}
		}
	}
	return out, nil
}

// rewriteLog copies a log, each complete line of valid JSON through
// Rewrite, and returns where the lines at the offsets of forks start in
// the copy. A torn last line and lines that are not JSON are copied as
// they are (fsck's business, not the migration's).
func (m *migration) rewriteLog(src io.Reader, dst io.Writer, forks []int64) (map[int64]int64, error) {
	want := map[int64]bool{}
	for _, f := range forks {
		want[f] = true
	}
	moved := map[int64]int64{}
	r, w := bufio.NewReaderSize(src, 1<<20), bufio.NewWriterSize(dst, 1<<20)
	var in, out int64
	for {
		if want[in] {
			moved[in] = out
		}
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) { // a line longer than the buffer
			var rest []byte
			rest, err = r.ReadBytes('\n')
			line = append(append([]byte(nil), line...), rest...)
		}
		if len(line) > 0 {
			n := len(line)
			if valid, _ := backing.ScanJSON(line[:n-1]); line[n-1] == '\n' && valid {
				// Clipped: a line given back as it is must not have its
				// newline appended into the reader's buffer.
				line = append(slices.Clip(m.o.Rewrite(line[:n-1])), '\n')
			}
			if _, werr := w.Write(line); werr != nil {
				return nil, werr
			}
			in, out = in+int64(n), out+int64(len(line))
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	m.res.Before += in
	m.res.After += out
	for _, f := range forks {
		if _, ok := moved[f]; !ok && f > in { // past the end: as far past the new end
			moved[f] = out + f - in
		}
	}
	return moved, w.Flush()
}

// moveForkPoint rewrites a copied branch file's parent_offset to where its
// line starts in the parent's new log. Only the number changes; a file
// that is not a branch, or a fork point not at a line start (fsck reports
// both), is left as it is.
func moveForkPoint(orig, path string, moved map[string]map[int64]int64) error {
	data, err := readFile(path)
	if err != nil {
		return err
	}
	var b backing.Branch
	if json.Unmarshal(data, &b) != nil || b.Parent == "" {
		return nil
	}
	to, ok := moved[b.Parent][b.ParentOffset]
	s, e, found := backing.MemberSpan(data, "parent_offset")
	if !ok || !found || to == b.ParentOffset {
		return nil
	}
	out := append(append(append([]byte(nil), data[:s]...), strconv.FormatInt(to, 10)...), data[e:]...)
	if err := writeFileAtomic(path, out); err != nil {
		return err
	}
	f, err := openFile(orig, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return keepTime(f, path)
}

// finish drops the old copies and the migration's folder: the store is of
// the new format from here, with no way back.
func (m *migration) finish() error {
	m.step("finish")
	// Out of migrate/'s place in one rename, then removed: removed in
	// place, a kill midway left a migrate/ without its record or some of
	// the old copies, which --abort then took for a migration never begun
	// and left the store half undone.
	done := m.donePath()
	if err := removeAll(done); err != nil {
		return err
	}
	if err := rename(m.path(), done, unix.RENAME_NOREPLACE); err != nil {
		return err
	}
	if err := syncDir(m.root); err != nil {
		return err
	}
	m.step("remove the old copies") // done: a kill from here leaves them for migrate or fsck --repair
	return removeAll(done)
}

// donePath is where a finished migration's folder goes to be removed; a
// kill can leave it there, for the next migrate or fsck --repair to
// remove.
func (m *migration) donePath() string { return migrationDonePath(m.root) }

func migrationDonePath(root string) string { return filepath.Join(root, tmpPrefix+migrateDir+"-done") }

// AbortMigration takes a store whose migration was cut short back to the
// format it had: every session's old copy back in place, the new ones
// dropped. It is an error when no migration is under way.
func AbortMigration(root string) error {
	m := &migration{root: root}
	return m.abort()
}

func (m *migration) abort() error {
	unlock, err := (&fileLock{path: filepath.Join(m.root, "lock")}).lock()
	if err != nil {
		return err
	}
	defer unlock()
	if !exists(m.path()) {
		return fmt.Errorf("store %s has no migration under way", m.root)
	}
	from, err := migratedFrom(m.root)
	if err != nil {
		// Cut short before it was recorded: FORMAT was never changed.
		m.step("forget")
		if err := removeAll(m.path()); err != nil {
			return err
		}
		return syncDir(m.root)
	}
	ents, err := readDir(m.path("old"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, e := range ents {
		live := filepath.Join(m.root, "sessions", e.Name())
		if exists(live) {
			m.step("drop new")
			if err := removeAll(live); err != nil {
				return err
			}
		}
		m.step("put back")
		if err := rename(m.path("old", e.Name()), live, unix.RENAME_NOREPLACE); err != nil {
			return err
		}
	}
	if err := syncDir(filepath.Join(m.root, "sessions")); err != nil {
		return err
	}
	m.step("format back")
	if err := writeFileAtomic(filepath.Join(m.root, "FORMAT"), formatLine(from)); err != nil {
		return err
	}
	m.step("forget")
	if err := removeAll(m.path()); err != nil {
		return err
	}
	return syncDir(m.root)
}

// copyTree copies the folder from into to, which must not exist: folders
// and links as they are (a link is never followed), each regular file
// through copy (given its path relative to from, with / between
// elements), fsynced.
func copyTree(from, to string, copy func(rel string, src, dst *os.File) error) error {
	var walk func(rel string) error
	walk = func(rel string) error {
		if err := mkdir(filepath.Join(to, rel), dirMode); err != nil {
			return err
		}
		ents, err := readDir(filepath.Join(from, rel))
		if err != nil {
			return err
		}
		for _, e := range ents {
			r := filepath.Join(rel, e.Name())
			switch t := e.Type(); {
			case t.IsDir():
				err = walk(r)
			case t&os.ModeSymlink != 0:
				var target string
				if target, err = readlink(filepath.Join(from, r)); err == nil {
					err = symlink(target, filepath.Join(to, r))
				}
			case t.IsRegular():
				err = copyFile(filepath.Join(from, r), filepath.Join(to, r), func(src, dst *os.File) error {
					return copy(filepath.ToSlash(r), src, dst)
				})
			default:
				err = fmt.Errorf("%s: not a file, folder or link", filepath.Join(from, r))
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	return walk("")
}

func copyFile(from, to string, copy func(src, dst *os.File) error) error {
	src, err := openFile(from, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := openFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fileMode)
	if err != nil {
		return err
	}
	err = copy(src, dst)
	if err == nil {
		err = dst.Sync()
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = keepTime(src, to)
	}
	return err
}

// keepTime gives the file at to the modification time of from: a log's
// is when its branch was last written to (a session's last activity).
func keepTime(from *os.File, to string) error {
	fi, err := from.Stat()
	if err != nil {
		return err
	}
	return chtimes(to, fi.ModTime())
}

// syncTree fsyncs every folder under dir, dir included, deepest first, so
// the entries made in them are durable.
func syncTree(dir string) error {
	ents, err := readDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.IsDir() {
			if err := syncTree(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return syncDir(dir)
}
