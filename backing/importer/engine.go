package importer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// Auto asks an import to take each file's format from its content.
const Auto Format = "auto"

// Options say how an Importer imports and what its messages suggest.
type Options struct {
	// Format is the format every file must be in: ClaudeCode, Codex, or
	// Auto (also when empty) for the format each file's content shows.
	Format Format
	// AutoFlag is how the user asks for the format to be detected, for
	// the message that refuses a file of another format: "--format auto".
	AutoFlag string
	// RemoveCommand is the command line that moves session name to the
	// trash, for the messages that suggest it: "sessfs rm --store S name".
	// When nil, "sessfs rm name".
	RemoveCommand func(name string) string
	// Progress, when set, is called by Run before it imports each file:
	// the i-th (from 0) of total.
	Progress func(i, total int, path string)
	// Workers, above 1, is how many files Run reads and decodes ahead
	// of the one whose session it creates, and stores behind it (ahead.go).
	Workers int
	// Sync keeps sessions as `sessfs sync` does (sync.go), for good: a
	// source the agent rewrote is stored again as a new session, the one
	// of what it was kept as it was (an import refuses it instead, for
	// its user to decide), and meta.json's origin follows the file where
	// it moves and says when it is back after it was found gone.
	Sync bool
}

// Importer imports agents' session files into one store: each source file
// becomes one session, or brings the session an earlier import made of it
// up to date with what the source gained since. It finds that session by
// what the session's meta.json records of its source (see Origin), never
// by its name: names are chosen to be read, and the user may rename a
// session. An Importer is not safe for concurrent use.
type Importer struct {
	st   backing.Store
	opts Options
	// index is every imported session of the store, read on first use
	// and kept up to date by this Importer's imports (index.go).
	index map[sourceKey]*indexed
	// byPath is the index by where each source was last found, for the
	// quick check (unchanged).
	byPath map[string]*indexed
	// waitBegun leaves a new file the agent has only begun for later
	// (Result.Later): Syncer.Watch, which takes it at its next change.
	waitBegun bool
	// await, while a Run with workers goes, waits for the storing of
	// session id under way, if any, and says whether there was one.
	await func(id string) bool
	// Decoded counts the files decoded: those new or changed since they
	// were imported; an unchanged one costs a read and a hash.
	Decoded int
}

// New returns an Importer into st.
func New(st backing.Store, opts Options) *Importer {
	if opts.Format == "" {
		opts.Format = Auto
	}
	if opts.RemoveCommand == nil {
		opts.RemoveCommand = func(name string) string { return "sessfs rm " + name }
	}
	return &Importer{st: st, opts: opts}
}

// Result is what an import did with one source file.
type Result struct {
	Path string // the file, as SourceFiles names it
	// Name is the session's name: the one the file went into or was
	// already imported as; "" when the file failed before one was found.
	Name string
	// Stored says whether anything was stored: false for a source
	// already imported whole and unchanged since.
	Stored bool
	// New says the session was created by this import. Replaced, with
	// Options.Sync, is the session that keeps what the source was before
	// the agent rewrote it; Name is the new session of what it is now.
	New      bool
	Replaced string
	// Later says a new file was left for later by a Syncer's Watch: the
	// agent has only begun it (see begun).
	Later bool
	// Gone says a sync found the file deleted: its session stays as it
	// was, and its meta.json says when (Syncer).
	Gone bool
	Err  error // why the file was not imported, or not whole
}

// Run imports every file SourceFiles finds under paths, in that order,
// calling Options.Progress before each file and done (when not nil) with
// each file's Result, then links each session that came from another (a
// Codex fork, a Claude Code subagent's file) to it, whichever file came
// first. A file that fails does not stop the others. Run's error is that
// of listing paths (nothing is imported then) or of linking. With
// Options.Workers above 1, files are read ahead and stored behind
// (ahead.go), with the same sessions, names and Results in the same order.
func (r *Importer) Run(paths []string, done func(Result)) error {
	files, err := SourceFiles(paths)
	if err != nil {
		return err
	}
	if done == nil {
		done = func(Result) {}
	}
	if r.opts.Workers > 1 && r.load() == nil {
		r.runAhead(files, done)
	} else {
		for i, path := range files {
			r.progress(i, len(files), path)
			done(r.file(path))
		}
	}
	return r.linkForks()
}

func (r *Importer) progress(i, total int, path string) {
	if r.opts.Progress != nil {
		r.opts.Progress(i, total, path)
	}
}

// file creates one session from one source file, or brings the one an
// earlier import made of it up to date with what the source gained since.
func (r *Importer) file(path string) Result {
	res := r.importFile(path)
	res.Path = path
	return res
}

// importFile is file, but for the Result's Path. The source is read in
// pieces (stream.go): once for its size and hash, once decoded for what
// the session is and where each line goes, and once more, decoded again
// unless its lines were few enough to keep, to store them.
func (r *Importer) importFile(path string) Result {
	fi, err := os.Stat(path)
	if err != nil {
		return Result{Err: err}
	}
	if name, ok, err := r.unchanged(path, fi); ok || err != nil {
		return Result{Name: name, Err: err}
	}
	// The bytes imported of the file found here last: a source that grew
	// is checked against them (sameSource) without a read of its own.
	prefix := int64(-1)
	if e := r.byPath[path]; e != nil && e.stamp.size > 0 {
		prefix = e.stamp.size
	}
	so := r.openSource(path, fi, prefix)
	defer so.close()
	res, st := r.settle(so)
	if st == nil {
		return res
	}
	res = st.run()
	r.stamped(st)
	return res
}

// source is a source file as an import reads it: its size and hash, its
// format and the id its first lines give, and, once decoded, what its
// session is and where each of its lines goes. Making one reads the file
// and nothing of the Importer's state but its options: workers make them
// ahead (ahead.go).
type source struct {
	path   string
	fi     os.FileInfo
	f      *os.File
	sf     *sourceFile
	format Format
	err    error // of opening, reading or detecting it: nothing else is known
	id     string
	idErr  error // PeekID's
	// decode's
	decoded   bool
	src       *Session
	plan      *linePlan
	decodeErr error
}

// openSource reads the file at path, of info fi, for its size and hash
// (and those of its first prefix bytes when prefix ≥ 0), its format and
// its id.
func (r *Importer) openSource(path string, fi os.FileInfo, prefix int64) *source {
	so := &source{path: path, fi: fi}
	if so.f, so.err = os.Open(path); so.err != nil {
		return so
	}
	if so.sf, so.err = readSource(so.f, prefix); so.err != nil {
		return so
	}
	if so.format, so.err = r.sourceFormat(so.sf.lines(), r.opts.Format); so.err != nil {
		return so
	}
	so.id, so.idErr = PeekID(so.sf.lines(), so.format)
	return so
}

// decode decodes the source, once, for what the session is and where
// each line goes (planSource).
func (so *source) decode() {
	if !so.decoded {
		so.decoded = true
		so.src, so.plan, so.decodeErr = planSource(so.sf, so.format)
	}
}

func (so *source) close() {
	if so.f != nil {
		so.f.Close()
	}
}

// settle decides what source so becomes: nothing, for one already
// imported whole and unchanged since; else the session it goes into,
// found by its id or created and named, and a storing of its lines, for
// the caller to run. It is the part of an import that reads and changes
// the Importer's state (the index, the names taken), so the part a
// Run with workers does one file at a time, in order.
func (r *Importer) settle(so *source) (Result, *storing) {
	if so.err != nil {
		return Result{Err: so.err}, nil
	}
	path, fi, sf, format := so.path, so.fi, so.sf, so.format
	// A source already imported whole and unchanged since costs a hash,
	// not a decode: what mount --source and sync do for every file.
	var (
		k      sourceKey
		looked bool // whether s and m are what find says of k
		s      backing.Session
		m      backing.Meta
		err    error
	)
	if so.idErr == nil {
		k, looked = keyOf(format, so.id, path), true
		if s, m, err = r.findStored(k); err != nil {
			return Result{Err: err}, nil
		}
		if s != nil && upToDate(m, sf) {
			return Result{Name: m.Name, Err: r.seenAt(s, m, path, fileTime(fi))}, nil
		}
	}
	r.Decoded++
	so.decode()
	if so.decodeErr != nil {
		return Result{Err: so.decodeErr}, nil
	}
	src := so.src
	if sk := keyOf(format, src.SourceID, path); !looked || sk != k {
		k = sk
		if s, m, err = r.findStored(k); err != nil {
			return Result{Err: err}, nil
		}
	}
	if s == nil && r.waitBegun && begun(src, path) {
		return Result{Later: true}, nil
	}
	res := Result{New: s == nil}
	if s != nil {
		if err := r.sameSource(m, sf); errors.Is(err, ErrRewritten) && r.opts.Sync {
			res = Result{New: true, Replaced: m.Name}
			old := s
			if s, m, err = r.newSession(k, src, sf, path); err != nil {
				return Result{Name: res.Replaced, Err: err}, nil
			}
			if err := r.replace(k, old, s, m); err != nil {
				return Result{Name: m.Name, Err: err}, nil
			}
		} else if err != nil {
			return Result{Name: m.Name, Err: err}, nil
		} else if err := r.seenAt(s, m, path, ""); err != nil {
			return Result{Name: m.Name, Err: err}, nil
		}
	} else if s, m, err = r.newSession(k, src, sf, path); err != nil {
		return Result{Err: err}, nil
	}
	res.Name = m.Name
	return res, &storing{res: res, k: k, s: s, m: m, so: so}
}

// findStored is find, once any storing of the session it finds that is
// under way (ahead.go) is done.
func (r *Importer) findStored(k sourceKey) (backing.Session, backing.Meta, error) {
	s, m, err := r.find(k)
	if s != nil && r.await != nil && r.await(s.ID()) {
		s, m, err = r.find(k)
	}
	return s, m, err
}

// storing is what is left of a file's import once its session is known:
// store the lines it lacks and record them in its meta.json. It changes
// that session alone, so it can run beside the import of the next file
// (ahead.go); what it learnt goes into the index after (stamped).
type storing struct {
	res Result
	k   sourceKey
	s   backing.Session
	m   backing.Meta
	so  *source
	// stamp is what the quick check will know the file by, once run
	// recorded it stored whole.
	stamp    quickStamp
	recorded bool
}

// run stores the lines and returns the file's Result.
func (st *storing) run() Result {
	res, sf := st.res, st.so.sf
	n, err := storeSource(st.s, sf, st.so.format, st.so.plan)
	res.Stored = res.New || n > 0
	if err != nil {
		res.Err = err
		return res
	}
	if res.New || n > 0 || !upToDate(st.m, sf) {
		mtime := fileTime(st.so.fi)
		if err := recordImported(st.s, sf, mtime); err != nil {
			res.Err = err
		} else {
			st.recorded, st.stamp = true, quickStamp{sf.size, mtime}
		}
	}
	return res
}

// stamped tells the index what storing st recorded, for the quick check.
func (r *Importer) stamped(st *storing) {
	if e := r.index[st.k]; st.recorded && e != nil && e.id == st.s.ID() {
		e.stamp = st.stamp
	}
}

// newSession makes the session of source k, named for what it is (see
// names.go), and indexes it.
func (r *Importer) newSession(k sourceKey, src *Session, sf *sourceFile, path string) (backing.Session, backing.Meta, error) {
	// Where the session came from, and what the source says of itself
	// beyond the fields meta.json has, under one key.
	o := Origin{Format: k.format, ID: src.SourceID, Path: path, Subagent: k.subagent}
	o.set(src.Extra)
	o.importedSum(int(sf.size), sf.sum)
	raw, err := json.Marshal(o)
	if err != nil {
		return nil, backing.Meta{}, err
	}
	base, fallback := r.nameBase(k, src)
	meta := backing.Meta{
		Title: src.Title, Cwd: src.Cwd, Model: src.Model, Provider: src.Provider, Created: src.Created,
		Extra: map[string]json.RawMessage{"source": raw},
	}
	RecordRemote(&meta) // Codex's source has its own; Claude Code's does not
	s, m, err := r.create(base, fallback, meta)
	if err != nil {
		return nil, m, err
	}
	r.add(s.ID(), m)
	return s, m, nil
}

// begun says whether a new source is one an agent has only begun: no
// title yet (the user's prompt is still to come: Codex writes its session
// line and context first), and written in the last minute. A watch leaves
// it for later, so that its session is named for its prompt rather than
// its id; one that never gets a title is taken by the first scan after it
// is a minute old.
func begun(src *Session, path string) bool {
	if src.Title != "" {
		return false
	}
	fi, err := os.Stat(path)
	return err == nil && time.Since(fi.ModTime()) < time.Minute
}

// sourceFormat is the format of a source: what its content says, which
// must be the format asked for unless that is auto. A file of another
// format, or of none, is refused by what it is, rather than decoded into
// an empty session.
func (r *Importer) sourceFormat(head io.Reader, want Format) (Format, error) {
	found, err := Detect(head)
	var unknown *DetectError
	switch {
	case errors.As(err, &unknown) && want == Auto:
		return "", fmt.Errorf("neither a %s, a %s nor a %s (%s)", ClaudeCode.Noun(), Codex.Noun(), Gemini.Noun(), unknown.Reason)
	case errors.As(err, &unknown):
		return "", fmt.Errorf("not a %s (%s)", want.Noun(), unknown.Reason)
	case err != nil:
		return "", err
	case want != Auto && found != want:
		return "", fmt.Errorf("not a %s (it looks like a %s); use %s", want.Noun(), found.Noun(), r.opts.AutoFlag)
	}
	return found, nil
}

// upToDate says whether the session of meta.json m holds all of source
// sf: an import of exactly these bytes finished (meta.json says so once
// every line is stored).
func upToDate(m backing.Meta, sf *sourceFile) bool {
	o, ok := OriginOf(m)
	return ok && o.Complete && o.holdsSum(int(sf.size), sf.sum)
}

// ErrRewritten is the error (errors.Is) of a source that changed since it
// was imported other than by growing. Its session is left as it was.
var ErrRewritten = errors.New("the source changed since it was imported (it did not only grow)")

// sameSource checks that the source of the session of meta.json m (found
// by the source's id, so imported from it) only grew since: it still
// starts with the bytes imported then. Else the way out is to move the
// session to the trash: an import finds a session by its source's id,
// whatever it is called, so renaming it would not help.
func (r *Importer) sameSource(m backing.Meta, sf *sourceFile) error {
	o, _ := OriginOf(m)
	if o.Bytes == nil {
		return fmt.Errorf("session %q was imported by an earlier sessfs, which kept no record to grow it by: "+
			"remove it (%s) and import again", m.Name, r.opts.RemoveCommand(m.Name))
	}
	rewritten := int64(*o.Bytes) > sf.size
	if !rewritten {
		sum, err := sf.sumOf(int64(*o.Bytes))
		if err != nil {
			return err
		}
		rewritten = sum != o.SHA256
	}
	if rewritten {
		return fmt.Errorf("%w: to import it afresh, move session %q to the trash first (%s)",
			ErrRewritten, m.Name, r.opts.RemoveCommand(m.Name))
	}
	return nil
}

// recordImported notes in meta.json of session s the bytes of source sf
// now imported, all stored, and the time of the file they were read from.
func recordImported(s backing.Session, sf *sourceFile, mtime string) error {
	m, err := s.Meta()
	if err != nil {
		return err
	}
	o, _ := OriginOf(m)
	o.importedSum(int(sf.size), sf.sum)
	o.Complete, o.MTime = true, mtime
	raw, err := json.Marshal(o)
	if err != nil {
		return err
	}
	return s.SetExtra("source", raw)
}

// fileTime is a file's modification time as Origin.MTime records it.
func fileTime(fi os.FileInfo) string {
	return fi.ModTime().UTC().Format(time.RFC3339Nano)
}
