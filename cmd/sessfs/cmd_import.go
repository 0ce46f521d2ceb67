package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/importer"
)

func runImport(args []string) int {
	c := newCLI("import", "[--format claude-code|codex|auto] PATH...",
		"Imports sessions written by Claude Code (~/.claude/projects/*/*.jsonl) or Codex\n"+
			"(~/.codex/sessions/**/rollout-*.jsonl): files, or folders searched for *.jsonl.\n"+
			"A file not of the --format named is refused, saying what it looks like.\n"+
			"Prints the name of each session it creates or updates. A new session is named\n"+
			"by Claude Code's slug for it (expressive-chasing-pie), else by the first words\n"+
			"of its title, else by its format and the end of its id; -2, -3, … when taken.\n"+
			"Every line of the source is stored, with its bytes under \"source\" (lines that\n"+
			"are not messages, such as summaries and UI events, as messages of role\n"+
			"\"event\", left out of transcripts), so `sessfs export --format original`\n"+
			"writes the file back byte for byte. Importing a source again finds its session\n"+
			"by the source's id, whatever the session is called now, and stores only what\n"+
			"the source gained since. A Claude Code rewind's abandoned path becomes a\n"+
			"branch, rewind-1, …; a subagent's lines a branch subagent-1, …, and a\n"+
			"subagent's own file (subagents/agent-*.jsonl) a session <name>-agent-<id>\n"+
			"named after its session and linked to it, as a Codex fork is to its origin.")
	format := c.fs.String("format", "auto", "the source format: claude-code, codex or auto (by content)")
	rest, code, ok := c.parse(args, 1, -1)
	if !ok {
		return code
	}
	switch *format {
	case "auto", string(importer.ClaudeCode), string(importer.Codex):
	default:
		return c.usageError(fmt.Sprintf("--format %q: want claude-code, codex or auto", *format))
	}
	st, err := c.open()
	if err != nil {
		return c.fail(err)
	}
	files, err := sourceFiles(rest)
	if err != nil {
		return c.fail(err)
	}
	failed := 0
	progress := newProgress(len(files))
	imports := newImportRun(st, "--format auto", c.storeArg())
	for i, path := range files {
		progress.show(i, path)
		name, stored, err := imports.file(path, importer.Format(*format))
		progress.clear()
		switch {
		case err != nil:
			c.warn(fmt.Errorf("%s: %w", path, err))
			failed++
		case !stored:
			fmt.Fprintf(os.Stderr, "sessfs import: %s: already imported as %s, nothing new\n", path, name)
		default:
			fmt.Println(name)
		}
	}
	// Forks link to the session they came from once both are in, whatever
	// order the files came in.
	if err := imports.linkForks(); err != nil {
		c.warn(err)
		failed++
	}
	if failed > 0 {
		return exitFail
	}
	return exitOK
}

// sourceFiles expands folders into the *.jsonl files below them, sorted.
func sourceFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			out = append(out, p)
			continue
		}
		// Stat followed the links to a folder; WalkDir does not follow a
		// link at its root, and found nothing there. Walk the folder they
		// lead to, and name its files by it: the paths meta.json records.
		if p, err = filepath.EvalSymlinks(p); err != nil {
			return nil, err
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(d.Name(), ".jsonl") {
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	// A session's own file before its subagents' files: the names print
	// in that order, and a subagent links to a session already in.
	sort.SliceStable(out, func(i, j int) bool { return subagentOf(out[i]) == "" && subagentOf(out[j]) != "" })
	return out, nil
}

// file creates one session from one source file, or brings the one an
// earlier import made of it up to date with what the source gained since.
// It returns the session's name and whether anything was stored.
func (r *importRun) file(path string, want importer.Format) (string, bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", false, err
	}
	data = completeLines(data)
	format, err := r.sourceFormat(data, want)
	if err != nil {
		return "", false, err
	}
	// A source already imported whole and unchanged since costs a hash,
	// not a decode: what mount --source does for every file it mirrors.
	var (
		k      sourceKey
		looked bool // whether s and m are what find says of k
		s      *backing.Session
		m      backing.Meta
	)
	if id, err := importer.PeekID(bytes.NewReader(data), format); err == nil {
		k, looked = keyOf(format, id, path), true
		if s, m, err = r.find(k); err != nil {
			return "", false, err
		}
		if s != nil && upToDate(m, data) {
			return m.Name, false, nil
		}
	}
	src, err := importer.Decode(bytes.NewReader(data), format)
	if err != nil {
		return "", false, err
	}
	main, forks, err := src.Branches()
	if err != nil {
		return "", false, err
	}
	if sk := keyOf(format, src.SourceID, path); !looked || sk != k {
		k = sk
		if s, m, err = r.find(k); err != nil {
			return "", false, err
		}
	}
	created := s == nil
	if created {
		if s, m, err = r.newSession(k, src, data, path); err != nil {
			return "", false, err
		}
	} else if err := r.sameSource(m, data); err != nil {
		return m.Name, false, err
	}
	n, err := storeMissing(s, main, forks)
	if err != nil {
		return m.Name, created, err
	}
	if created || n > 0 || !upToDate(m, data) {
		if err := recordImported(s, data); err != nil {
			return m.Name, true, err
		}
	}
	return m.Name, created || n > 0, nil
}

// newSession makes the session of source k, named for what it is (see
// import_names.go), and indexes it.
func (r *importRun) newSession(k sourceKey, src *importer.Session, data []byte, path string) (*backing.Session, backing.Meta, error) {
	// Where the session came from, and what the source says of itself
	// beyond the fields meta.json has, under one key.
	o := origin{Format: k.format, ID: src.SourceID, Path: path, Subagent: k.subagent}
	o.set(src.Extra)
	o.imported(data)
	raw, err := json.Marshal(o)
	if err != nil {
		return nil, backing.Meta{}, err
	}
	base, fallback := r.nameBase(k, src)
	s, m, err := r.create(base, fallback, backing.Meta{
		Title: src.Title, Cwd: src.Cwd, Model: src.Model, Provider: src.Provider, Created: src.Created,
		Extra: map[string]json.RawMessage{"source": raw},
	})
	if err != nil {
		return nil, m, err
	}
	r.add(s.ID(), m)
	return s, m, nil
}

// sourceFormat is the format of a source: what its content says, which
// must be the format asked for unless that is auto. A file of another
// format, or of none, is refused by what it is, rather than decoded into
// an empty session.
func (r *importRun) sourceFormat(data []byte, want importer.Format) (importer.Format, error) {
	found, err := importer.Detect(bytes.NewReader(data))
	var unknown *importer.DetectError
	switch {
	case errors.As(err, &unknown) && want == "auto":
		return "", fmt.Errorf("neither a %s nor a %s (%s)", importer.ClaudeCode.Noun(), importer.Codex.Noun(), unknown.Reason)
	case errors.As(err, &unknown):
		return "", fmt.Errorf("not a %s (%s)", want.Noun(), unknown.Reason)
	case err != nil:
		return "", err
	case want != "auto" && found != want:
		return "", fmt.Errorf("not a %s (it looks like a %s); use %s", want.Noun(), found.Noun(), r.autoHint)
	}
	return found, nil
}

// upToDate says whether the session of meta.json m holds all of data: an import of exactly these
// bytes finished (meta.json says so once every line is stored).
func upToDate(m backing.Meta, data []byte) bool {
	o, ok := originOf(m)
	return ok && o.Complete && o.holds(data)
}

// completeLines drops a last line that is not complete JSON: an agent in
// the middle of writing it. The next import takes it whole.
func completeLines(data []byte) []byte {
	nl := bytes.LastIndexByte(data, '\n')
	if last := bytes.TrimSpace(data[nl+1:]); len(last) > 0 && !json.Valid(last) {
		return data[:nl+1]
	}
	return data
}

// subagentOf names the subagent whose file path is (Claude Code writes
// <session>/subagents/agent-<id>.jsonl, its lines under the parent's
// sessionId), or "" for a session's own file.
func subagentOf(path string) string {
	if filepath.Base(filepath.Dir(path)) != "subagents" {
		return ""
	}
	return strings.TrimSuffix(filepath.Base(path), ".jsonl")
}

// errRewritten is a source that changed other than by growing.
var errRewritten = errors.New("the source changed since it was imported (it did not only grow)")

// sameSource checks that the source of the session of meta.json m (found
// by the source's id, so imported from it) only grew since: it still
// starts with the bytes imported then. Else the way out is to move the
// session to the trash: an import finds a session by its source's id,
// whatever it is called, so renaming it would not help.
func (r *importRun) sameSource(m backing.Meta, data []byte) error {
	o, _ := originOf(m)
	if o.Bytes == nil {
		return fmt.Errorf("session %q was imported by an earlier sessfs, which kept no record to grow it by: "+
			"remove it (sessfs rm%s %s) and import again", m.Name, r.storeArg, shellQuote(m.Name))
	}
	if *o.Bytes > len(data) || !o.holds(data[:*o.Bytes]) {
		return fmt.Errorf("%w: to import it afresh, move session %q to the trash first (sessfs rm%s %s)",
			errRewritten, m.Name, r.storeArg, shellQuote(m.Name))
	}
	return nil
}

// recordImported notes in meta.json the bytes now imported, all stored.
func recordImported(s *backing.Session, data []byte) error {
	m, err := s.Meta()
	if err != nil {
		return err
	}
	o, _ := originOf(m)
	o.imported(data)
	o.Complete = true
	raw, err := json.Marshal(o)
	if err != nil {
		return err
	}
	return s.SetExtra("source", raw)
}

// storeMissing stores every line of the split source (main and forks)
// that s does not hold yet, each in its branch, and returns how many. What
// s holds is read from the lines themselves (their source_seq), so an
// import cut short anywhere, or a source that grew, gets exactly the
// lines it lacks: none twice, none lost. A fork is made when it first has
// lines to store, after the branch it forks from; one whose parent
// cannot be made (a rewind reaching back past what an earlier import
// stored) has its new lines go on in the default branch.
func storeMissing(s *backing.Session, main [][]byte, forks []importer.Fork) (int, error) {
	have, err := storedSeqs(s)
	if err != nil {
		return 0, err
	}
	missing := func(lines [][]byte) [][]byte {
		var out [][]byte
		for _, l := range lines {
			if n, ok := sourceSeq(l); ok && !have[n] {
				out = append(out, l)
			}
		}
		return out
	}
	stored := 0
	put := func(branch string, lines [][]byte) error {
		if len(lines) == 0 {
			return nil
		}
		if err := s.Append(branch, lines); err != nil {
			return err
		}
		stored += len(lines)
		return s.Backdate(branch, lastTS(lines))
	}
	if err := put("", missing(main)); err != nil {
		return stored, err
	}
	for _, f := range parentsFirst(forks) {
		lines := missing(f.Lines)
		if len(lines) == 0 {
			continue
		}
		branch := f.Name
		if _, err := s.Branch(f.Name); errors.Is(err, backing.ErrNotFound) {
			if from, err := s.Branch(f.From); err != nil {
				branch = ""
			} else if _, err := s.Fork(from.ID, f.At, f.Name); err != nil {
				return stored, err
			}
		} else if err != nil {
			return stored, err
		}
		if err := put(branch, lines); err != nil {
			return stored, err
		}
	}
	return stored, nil
}

// parentsFirst orders forks so that each comes after the one it forks from.
func parentsFirst(forks []importer.Fork) []importer.Fork {
	var out []importer.Fork
	placed := map[string]bool{"": true}
	for len(out) < len(forks) {
		progress := false
		for _, f := range forks {
			if !placed[f.Name] && placed[f.From] {
				out, placed[f.Name], progress = append(out, f), true, true
			}
		}
		if !progress { // a parent that is not among forks: keep the rest as they are
			for _, f := range forks {
				if !placed[f.Name] {
					out, placed[f.Name] = append(out, f), true
				}
			}
		}
	}
	return out
}

// storedSeqs is the set of source lines s holds, in every branch.
func storedSeqs(s *backing.Session) (map[int]bool, error) {
	branches, err := s.Branches()
	if err != nil {
		return nil, err
	}
	have := map[int]bool{}
	for _, b := range branches {
		v, err := s.ViewID(b.ID)
		if err != nil {
			return nil, err
		}
		for i := v.Inherited(); i < v.Len(); i += showChunk {
			msgs, err := v.Read(i, min(i+showChunk, v.Len()))
			if err != nil {
				return nil, err
			}
			for _, m := range msgs {
				if n, ok := sourceSeq(m.Raw); ok {
					have[n] = true
				}
			}
		}
	}
	return have, nil
}

// sourceSeq is a stored line's line number in its source.
func sourceSeq(raw []byte) (int, bool) {
	var seq struct {
		N *int `json:"source_seq"`
	}
	if json.Unmarshal(raw, &seq) != nil || seq.N == nil {
		return 0, false
	}
	return *seq.N, true
}

// lastTS is the latest time among stored lines' "ts", zero when none has
// one.
func lastTS(lines [][]byte) time.Time {
	var last time.Time
	for _, l := range lines {
		var m struct {
			TS string `json:"ts"`
		}
		json.Unmarshal(l, &m)
		if t, err := time.Parse(time.RFC3339Nano, m.TS); err == nil && t.After(last) {
			last = t
		}
	}
	return last
}

// progress shows "importing 12/300 name" on a terminal, on one line of
// standard error that the next output overwrites; elsewhere it is silent.
type progress struct {
	on    bool
	total int
}

func newProgress(total int) *progress {
	fi, err := os.Stderr.Stat()
	return &progress{on: err == nil && fi.Mode()&os.ModeCharDevice != 0 && total > 1, total: total}
}

func (p *progress) show(i int, path string) {
	if p.on {
		fmt.Fprintf(os.Stderr, "\rimporting %d/%d %s\x1b[K", i+1, p.total, shorten(filepath.Base(path), 50))
	}
}

func (p *progress) clear() {
	if p.on {
		fmt.Fprint(os.Stderr, "\r\x1b[K")
	}
}
