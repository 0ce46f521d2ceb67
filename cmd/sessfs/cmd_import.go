package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/importer"
)

func runImport(args []string) int {
	c := newCLI("import", "[--format claude-code|codex|auto] PATH...",
		"Imports sessions written by Claude Code (~/.claude/projects/*/*.jsonl) or Codex\n"+
			"(~/.codex/sessions/**/rollout-*.jsonl): files, or folders searched for *.jsonl.\n"+
			"Prints the name of each session it creates or updates. Every line of the source\n"+
			"is stored, with its bytes under \"source\" (lines that are not messages, such as\n"+
			"summaries and UI events, as messages of role \"event\", left out of transcripts),\n"+
			"so `sessfs export --format original` writes the file back byte for byte.\n"+
			"Importing a source again stores only what it gained since. A Claude Code rewind's\n"+
			"abandoned path becomes a branch, rewind-1, rewind-2, …")
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
	for i, path := range files {
		progress.show(i, path)
		name, stored, err := importFile(st, path, importer.Format(*format))
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
	if err := linkForks(st); err != nil {
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
	return out, nil
}

// importFile creates one session from one source file, or brings one it
// created before up to date with what the source gained since. Its name
// derives from the source's own id, so importing the same source again
// finds it. It reports whether anything was stored.
func importFile(st *backing.Store, path string, format importer.Format) (string, bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", false, err
	}
	if format == "auto" {
		if format, err = importer.Detect(bytes.NewReader(data)); err != nil {
			return "", false, err
		}
	}
	src, err := importer.Decode(bytes.NewReader(data), format)
	if err != nil {
		return "", false, err
	}
	lines, forks, err := src.Branches()
	if err != nil {
		return "", false, err
	}
	id := src.SourceID
	if id == "" {
		id = strings.TrimSuffix(filepath.Base(path), ".jsonl")
	}
	name := string(format) + "-" + shortID(id)
	if s, err := st.Session(name); err == nil {
		all, err := src.StoreLines()
		if err != nil {
			return name, false, err
		}
		n, err := importGrowth(s, src, data, all)
		return name, n > 0, err
	}
	// Where the session came from, and what the source says of itself
	// beyond the fields meta.json has, under one key of meta.json.
	origin := map[string]any{"format": format, "id": src.SourceID, "path": path}
	for k, v := range src.Extra {
		origin[k] = v
	}
	for k, v := range imported(data) {
		origin[k] = v
	}
	raw, err := json.Marshal(origin)
	if err != nil {
		return "", false, err
	}
	extra := map[string]json.RawMessage{"source": raw}
	s, m, err := st.Create(name, backing.Meta{Title: src.Title, Cwd: src.Cwd, Model: src.Model, Provider: src.Provider, Created: src.Created, Extra: extra})
	if err != nil {
		return "", false, err
	}
	if err := s.Append("", lines); err != nil {
		return m.Name, false, err
	}
	for _, f := range forks {
		if _, err := s.Fork(f.From, f.At, f.Name); err != nil {
			return m.Name, false, err
		}
		if err := s.Append(f.Name, f.Lines); err != nil {
			return m.Name, false, err
		}
		if err := s.Backdate(f.Name, lastTS(f.Lines)); err != nil {
			return m.Name, false, err
		}
	}
	if err := s.Backdate("", lastTS(lines)); err != nil {
		return m.Name, false, err
	}
	return m.Name, true, nil
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

// imported is what meta.json's "source" records of the bytes imported: a
// re-import checks the source still starts with them (it only grew), and
// an export of the original checks it gives them back.
func imported(data []byte) map[string]any {
	sum := sha256.Sum256(data)
	return map[string]any{"bytes": len(data), "sha256": hex.EncodeToString(sum[:])}
}

// importGrowth appends to s the lines of a source that came after those
// stored, and returns how many. The stored part is found from the messages
// themselves (their source_seq), not from meta.json, so an import cut
// short between the two writes neither loses nor repeats a line. New lines
// go to the default branch, in file order (a rewind made after the first
// import is not split off).
func importGrowth(s *backing.Session, src *importer.Session, data []byte, lines [][]byte) (int, error) {
	m, err := s.Meta()
	if err != nil {
		return 0, err
	}
	var origin struct {
		ID     string `json:"id"`
		Bytes  *int   `json:"bytes"`
		SHA256 string `json:"sha256"`
	}
	json.Unmarshal(m.Extra["source"], &origin)
	if origin.ID != src.SourceID {
		return 0, fmt.Errorf("session %q exists and was not imported from this source: %w", m.Name, backing.ErrExist)
	}
	if origin.Bytes != nil {
		sum := sha256.Sum256(data[:min(*origin.Bytes, len(data))])
		if *origin.Bytes > len(data) || hex.EncodeToString(sum[:]) != origin.SHA256 {
			return 0, fmt.Errorf("the source changed since it was imported as %s (it did not only grow); "+
				"rename or remove that session to import it afresh", m.Name)
		}
	}
	last, err := lastSourceSeq(s)
	if err != nil {
		return 0, err
	}
	var grown [][]byte
	for _, l := range lines {
		var seq struct {
			N int `json:"source_seq"`
		}
		if json.Unmarshal(l, &seq) == nil && seq.N > last {
			grown = append(grown, l)
		}
	}
	if len(grown) > 0 {
		if err := s.Append("", grown); err != nil {
			return 0, err
		}
		if err := s.Backdate("", lastTS(grown)); err != nil {
			return 0, err
		}
	}
	raw, err := json.Marshal(imported(data))
	if err != nil {
		return 0, err
	}
	var rec map[string]json.RawMessage
	json.Unmarshal(m.Extra["source"], &rec)
	var up map[string]json.RawMessage
	json.Unmarshal(raw, &up)
	for k, v := range up {
		rec[k] = v
	}
	if raw, err = json.Marshal(rec); err != nil {
		return 0, err
	}
	return len(grown), s.SetExtra("source", raw)
}

// lastSourceSeq is the highest source line stored in s, over every
// branch: in each, the last message that has one (a person may have
// appended after).
func lastSourceSeq(s *backing.Session) (int, error) {
	branches, err := s.Branches()
	if err != nil {
		return 0, err
	}
	last := 0
	for _, b := range branches {
		v, err := s.ViewID(b.ID)
		if err != nil {
			return 0, err
		}
	scan:
		for to := v.Len(); to > v.Inherited(); to -= showChunk {
			msgs, err := v.Read(max(v.Inherited(), to-showChunk), to)
			if err != nil {
				return 0, err
			}
			for i := len(msgs) - 1; i >= 0; i-- {
				var seq struct {
					N *int `json:"source_seq"`
				}
				if json.Unmarshal(msgs[i].Raw, &seq) == nil && seq.N != nil {
					last = max(last, *seq.N)
					break scan
				}
			}
		}
	}
	return last, nil
}

// shortID is the last twelve characters of an id: random in UUIDs v4 and
// v7 alike (a v7's first ones are its time, shared by sessions of one
// minute), and enough to tell a person's sessions apart.
func shortID(id string) string {
	id = strings.ReplaceAll(id, "-", "")
	if len(id) > 12 {
		return id[len(id)-12:]
	}
	return id
}

// linkForks sets the parent of every imported Codex session that says it
// was forked from another (forked_from_id) to that session, when imported.
func linkForks(st *backing.Store) error {
	names, err := st.Names()
	if err != nil {
		return err
	}
	for _, name := range names {
		if !strings.HasPrefix(name, string(importer.Codex)+"-") {
			continue
		}
		s, err := st.Session(name)
		if err != nil {
			continue // gone meanwhile
		}
		m, err := s.Meta()
		if err != nil || m.Parent != "" {
			continue
		}
		var origin struct {
			Format string `json:"format"`
			Forked string `json:"forked_from_id"`
		}
		if json.Unmarshal(m.Extra["source"], &origin) != nil || origin.Forked == "" {
			continue
		}
		parent, err := st.Session(origin.Format + "-" + shortID(origin.Forked))
		if err != nil {
			continue // not imported (yet)
		}
		if err := s.SetParent(parent.ID()); err != nil {
			return err
		}
	}
	return nil
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
