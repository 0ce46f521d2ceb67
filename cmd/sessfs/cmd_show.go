package main

import (
	"bufio"
	"fmt"
	"os"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/fsnode"
	"github.com/sessfs/sessfs/render"
)

// showChunk is how many messages show reads at a time: enough to amortise
// the reads, few enough that a huge session streams in bounded memory.
const showChunk = 1000

func runShow(args []string) int {
	c := newCLI("show", "[--branch B] [--format md|jsonl] [--turn N] SESSION",
		`Writes a branch of SESSION (default: its default branch), ancestry resolved,
to standard output: as Markdown, like transcript.md, or as JSON lines, like
messages.jsonl. The Markdown opens with a header: the title (else the
session's name), then a line each for the agent and its version, the model,
the cwd, the git branch, when the session was created and last active (UTC,
to the minute), the branch and, for a fork, the branch and message (and turn)
it was forked after; empty fields are left out. A "## Turn N" heading then
opens each turn. With --turn N, only turn N (1-based; a turn starts at a
prompt the human typed), as turns/<n>/transcript.md has it: without the
header.`)
	branch := c.fs.String("branch", "", "the branch to show (default: the default branch)")
	format := c.fs.String("format", "md", "md (Markdown) or jsonl (one message a line)")
	turn := c.fs.Int("turn", 0, "show only turn `N` (1-based), without the header")
	rest, code, ok := c.parse(args, 1, 1)
	if !ok {
		return code
	}
	var renderFn func(render.Message) []byte
	switch *format {
	case "md", "markdown":
		renderFn = render.Markdown
	case "jsonl":
		renderFn = render.JSONL
	default:
		return c.usageError(fmt.Sprintf("--format %q: want md or jsonl", *format))
	}
	if c.fs.Changed("turn") && *turn < 1 {
		return c.usageError(fmt.Sprintf("--turn %d: turns count from 1", *turn))
	}

	s, v, err := c.branchView(rest[0], *branch)
	if err != nil {
		return c.fail(err)
	}
	from, to := 0, v.Len()
	if c.fs.Changed("turn") {
		if from, to, err = v.TurnRange(*turn); err != nil {
			return c.fail(err)
		}
	}
	w := bufio.NewWriterSize(os.Stdout, 64<<10)
	if *format != "jsonl" && !c.fs.Changed("turn") {
		// As transcript.md: a header, then the turns. A turn alone is
		// as turns/<n>/transcript.md, its pieces only.
		w.Write(render.MarkdownHead(fsnode.TranscriptHeader(s, v)))
	}
	if err := writeMessages(w, v, from, to, renderFn); err != nil {
		return c.fail(err)
	}
	return exitOK
}

// writeMessages renders messages [from, to) of v to w, showChunk at a time.
// Each piece carries its heading and note as the mount's (fsnode.Pieces).
func writeMessages(w *bufio.Writer, v backing.View, from, to int, renderFn func(render.Message) []byte) error {
	pieces := fsnode.NewPieces(v, from)
	for i := from; i < to; i += showChunk {
		msgs, err := v.Read(i, min(i+showChunk, to))
		if err != nil {
			return err
		}
		for _, m := range msgs {
			rm, err := pieces.Next(m)
			if err != nil {
				return err
			}
			if _, err := w.Write(renderFn(rm)); err != nil {
				return err
			}
		}
	}
	return w.Flush()
}
