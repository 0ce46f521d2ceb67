package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/importer"
	"github.com/sessfs/sessfs/fsnode"
	"github.com/sessfs/sessfs/render"
)

func runExport(args []string) int {
	c := newCLI("export", "[--format md|html|json|jsonl|original|claude-code|codex] [--branch B] [--redact] [-o FILE] SESSION",
		`Writes SESSION to standard output or to FILE:
  md        Markdown, as transcript.md
  html      one self-contained page (no script, nothing loaded from the network)
  json      one JSON document: meta, branches, and the branch's messages
  jsonl     the branch's messages, one a line, as messages.jsonl
  original  an imported session's source file, byte for byte as the agent wrote
            it; messages added in sessfs are left out, and stderr says how many
  claude-code, codex
            the branch as a new session file of that agent, with a fresh id,
            which the agent can resume (see sessfs resume); what the agent
            cannot read is left out, and stderr says what
With --branch, that branch (default: the default branch; not for original).
With --redact, secrets are masked: API keys, tokens, passwords in URLs, private
keys (see README, Redaction). FILE is written whole or not at all.`)
	format := c.fs.String("format", "md", "md, html, json, jsonl, original, claude-code or codex")
	branch := c.fs.String("branch", "", "the branch to export (default: the default branch)")
	redact := c.fs.Bool("redact", false, "mask secrets (API keys, tokens, passwords, private keys)")
	outPath := c.fs.StringP("output", "o", "", "write to `FILE` instead of standard output")
	rest, code, ok := c.parse(args, 1, 1)
	if !ok {
		return code
	}
	native := *format == string(importer.ClaudeCode) || *format == string(importer.Codex)
	switch {
	case native:
		if *redact {
			return c.usageError("--redact: an agent's session file is written as the agent reads it; redact md, html, json or jsonl")
		}
	case *format == "md", *format == "html", *format == "json", *format == "jsonl", *format == "original":
	default:
		return c.usageError(fmt.Sprintf("--format %q: want md, html, json, jsonl, original, claude-code or codex", *format))
	}
	if *format == "original" && c.fs.Changed("branch") {
		return c.usageError("--branch: an original is the whole source file, every branch of it")
	}
	s, err := c.session(rest[0])
	if err != nil {
		return c.fail(err)
	}
	// Streamed, a message at a time, so memory does not grow with the
	// session; redaction goes piece by piece (a secret never spans two
	// messages). To a file: whole or not at all.
	var added []importer.Added // of an original: what it cannot hold
	var written importer.Native
	write := func(out io.Writer) error {
		w := bufio.NewWriterSize(out, 64<<10)
		x := exporter{w: w, redact: *redact}
		var err error
		if native {
			written, err = writeNative(w, importer.Format(*format), s, *branch, importer.NativeOptions{})
		} else if *format == "original" {
			added, err = x.original(s)
		} else {
			err = x.branch(s, *branch, *format)
		}
		if err != nil {
			return err
		}
		return w.Flush()
	}
	if *outPath == "" {
		err = write(os.Stdout)
	} else {
		err = writeFile(*outPath, write)
	}
	if err != nil {
		return c.fail(err)
	}
	if native {
		reportLeftOut("export", written)
	}
	if len(added) > 0 {
		// Written all the same: the original is what the agent wrote, but
		// the user must not believe it is the whole session.
		fmt.Fprintf(os.Stderr, "sessfs export: the original leaves out %s added in sessfs (%s); --format jsonl or json includes them%s\n",
			addedCount(added), branchCounts(added), branchHint(added))
	}
	return exitOK
}

// addedCount says how much was left out in all: "3 messages", "1 message
// and 2 events".
func addedCount(added []importer.Added) string {
	m, e := 0, 0
	for _, b := range added {
		m, e = m+b.Messages, e+b.Events
	}
	switch {
	case e == 0:
		return plural(m, "message")
	case m == 0:
		return plural(e, "event")
	}
	return plural(m, "message") + " and " + plural(e, "event")
}

// branchCounts says where: "main: 2, try: 1".
func branchCounts(added []importer.Added) string {
	var parts []string
	for _, b := range added {
		parts = append(parts, fmt.Sprintf("%s: %d", b.Branch, b.Messages+b.Events))
	}
	return strings.Join(parts, ", ")
}

// branchHint tells how to reach the branches other than the default one,
// which jsonl and json export only when named.
func branchHint(added []importer.Added) string {
	for _, b := range added {
		if !b.Default {
			return " (with --branch B for a branch other than the default)"
		}
	}
	return ""
}

// writeNative writes branch (by name) of s as a new session file of
// agent f (importer.WriteNative).
func writeNative(w io.Writer, f importer.Format, s backing.Session, branch string, o importer.NativeOptions) (importer.Native, error) {
	b, err := s.Branch(branch)
	if err != nil {
		return importer.Native{}, err
	}
	return importer.WriteNative(w, f, s, b.ID, o)
}

// reportLeftOut says on stderr what an agent's session file leaves out:
// written all the same, but the user must know it is not everything.
func reportLeftOut(cmd string, n importer.Native) {
	if len(n.LeftOut) > 0 {
		fmt.Fprintf(os.Stderr, "sessfs %s: left out of the %s: %s\n", cmd, n.Format.Noun(), n.LeftOut)
	}
}

// exporter writes a session in one format, each piece redacted if asked.
type exporter struct {
	w      *bufio.Writer
	redact bool
}

func (x exporter) put(b []byte) {
	if x.redact {
		b = render.Redact(b)
	}
	x.w.Write(b)
}

// renderer is fn, redacted if asked.
func (x exporter) renderer(fn func(render.Message) []byte) func(render.Message) []byte {
	if !x.redact {
		return fn
	}
	return func(m render.Message) []byte { return render.Redact(fn(m)) }
}

// branch writes one branch, ancestry resolved, in format.
func (x exporter) branch(s backing.Session, branch, format string) error {
	b, err := s.Branch(branch)
	if err != nil {
		return err
	}
	v, err := s.ViewID(b.ID)
	if err != nil {
		return err
	}
	switch format {
	case "jsonl":
		return writeMessages(x.w, v, 0, v.Len(), x.renderer(render.JSONL))
	case "md", "html":
		h := fsnode.TranscriptHeader(s, v)
		if format == "md" {
			x.put(render.MarkdownHead(h))
			return writeMessages(x.w, v, 0, v.Len(), x.renderer(render.Markdown))
		}
		x.put(render.HTMLHeadFor(h))
		if err := writeMessages(x.w, v, 0, v.Len(), x.renderer(render.HTML)); err != nil {
			return err
		}
		x.put(render.HTMLTail())
		return nil
	}
	return x.json(s, v)
}

// json writes one document a program can load whole: meta, the branch's
// tasks and memory, branches, and the branch's messages, as export.json
// has them (fsnode.ExportHead).
func (x exporter) json(s backing.Session, v backing.View) error {
	head, err := fsnode.ExportHead(s, v)
	if err != nil {
		return err
	}
	x.put(head)
	if v.Len() > 0 {
		msgs, err := v.Read(0, 1)
		if err != nil {
			return err
		}
		x.put(render.JSONMember(render.Message{Raw: msgs[0].Raw}, true))
	}
	member := x.renderer(func(m render.Message) []byte { return render.JSONMember(m, false) })
	if err := writeMessages(x.w, v, min(1, v.Len()), v.Len(), member); err != nil {
		return err
	}
	x.put(render.JSONTail())
	return nil
}

// original writes an imported session's source again (importer.Original):
// unredacted, the result must hash to what the import recorded, else it
// is refused rather than passed off as the original; redacted, each line
// is masked on its own. It returns, by branch, the lines added in sessfs,
// which the original cannot hold.
func (x exporter) original(s backing.Session) ([]importer.Added, error) {
	data, added, err := importer.Original(s)
	if err != nil {
		return nil, err
	}
	if x.redact {
		for _, line := range bytes.SplitAfter(data, []byte("\n")) {
			x.put(line)
		}
		return added, nil
	}
	if data, err = importer.Verify(s, data); err != nil {
		return nil, err
	}
	_, err = x.w.Write(data)
	return added, err
}

// writeFile writes path whole or not at all, through a temp file beside
// it. Its errors name path as the user typed it, never that temp file.
func writeFile(path string, write func(io.Writer) error) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a folder: name a file to write", path)
	}
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("cannot write %s: the folder %s does not exist", path, dir)
	} else if err == nil && !fi.IsDir() {
		return fmt.Errorf("cannot write %s: %s is not a folder", path, dir)
	}
	var werr error // the export's own error, which names what it is about
	err := writeFileAtomic(path, exportMode(path), func(w io.Writer) error {
		werr = write(fileWriter{w})
		return werr
	})
	var fe fileError
	if err == nil || (err == werr && !errors.As(err, &fe)) {
		return err
	}
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	// %v: a permission error here is about the user's folder, not the
	// store, which errorMessage would say.
	return fmt.Errorf("cannot write %s: %v", path, err)
}

// fileWriter marks the errors of writes to the temp file as fileErrors,
// which writeFile reports as errors writing the user's path: a full disk
// said "write /…/.tmp-out.json-312…: no space left on device".
type fileWriter struct{ w io.Writer }

func (f fileWriter) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if err != nil {
		err = fileError{err}
	}
	return n, err
}

// fileError is an error of writing the temp file.
type fileError struct{ err error }

func (e fileError) Error() string { return e.err.Error() }
func (e fileError) Unwrap() error { return e.err }

// exportMode is the mode of an exported file: an existing file's own, else
// what the umask leaves of 0666, as for any file a program creates (a
// transcript can be private; the user's umask says how private).
func exportMode(path string) os.FileMode {
	if fi, err := os.Stat(path); err == nil {
		return fi.Mode().Perm()
	}
	mask := syscall.Umask(0)
	syscall.Umask(mask)
	return 0o666 &^ os.FileMode(mask)
}
