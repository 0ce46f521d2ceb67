package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/importer"
)

func runImport(args []string) int {
	c := newCLI("import", "[--format claude-code|codex|auto] PATH...",
		"Imports sessions written by Claude Code (~/.claude/projects/*/*.jsonl) or Codex\n"+
			"(~/.codex/sessions/**/rollout-*.jsonl): files, or folders searched for *.jsonl.\n"+
			"Prints the name of each session it creates. Each message keeps its source line\n"+
			"under \"source\". Not yet: lines that are not messages (summaries, snapshots, UI\n"+
			"events), branches from Claude Code's rewinds, following a source that grew; a\n"+
			"source imported before is skipped.")
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
	for _, path := range files {
		name, err := importFile(st, path, importer.Format(*format))
		switch {
		case errors.Is(err, backing.ErrExist):
			fmt.Fprintf(os.Stderr, "sessfs import: %s: already imported as %s\n", path, name)
		case err != nil:
			c.warn(fmt.Errorf("%s: %w", path, err))
			failed++
		default:
			fmt.Println(name)
		}
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

// importFile creates one session from one source file. Its name derives
// from the source's own id, so importing the same source again finds it.
func importFile(st *backing.Store, path string, format importer.Format) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if format == "auto" {
		if format, err = importer.Detect(f); err != nil {
			return "", err
		}
		if _, err := f.Seek(0, 0); err != nil {
			return "", err
		}
	}
	src, err := importer.Decode(f, format)
	if err != nil {
		return "", err
	}
	id := src.SourceID
	if id == "" {
		id = strings.TrimSuffix(filepath.Base(path), ".jsonl")
	}
	name := string(format) + "-" + shortID(id)
	if _, err := st.Session(name); err == nil {
		return name, fmt.Errorf("session %q: %w", name, backing.ErrExist)
	}
	// Where the session came from, and what the source says of itself
	// beyond the fields meta.json has, under one key of meta.json.
	origin := map[string]any{"format": format, "id": src.SourceID, "path": path}
	for k, v := range src.Extra {
		origin[k] = v
	}
	raw, err := json.Marshal(origin)
	if err != nil {
		return "", err
	}
	extra := map[string]json.RawMessage{"source": raw}
	s, m, err := st.Create(name, backing.Meta{Title: src.Title, Cwd: src.Cwd, Model: src.Model, Provider: src.Provider, Extra: extra})
	if err != nil {
		return "", err
	}
	if err := s.Append("", src.Messages); err != nil {
		return m.Name, err
	}
	return m.Name, nil
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
