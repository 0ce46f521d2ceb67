package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/fsnode"
	"github.com/sessfs/sessfs/render"
)

func runReplay(args []string) int {
	return replayMain(args, os.Stdin, os.Stdout, os.Stderr, time.Sleep)
}

// replayMain is the command with its input, output and clock given, so
// that a test plays a session in process, recording the waits.
func replayMain(args []string, stdin io.Reader, stdout, stderr io.Writer, sleep func(time.Duration)) int {
	c := newCLI("replay", "[--branch B] [--speed X | --no-wait] [--from TURN] [--to TURN] [--checkpoint NAME] [--pause-at-tools] [--json] SESSION",
		`Plays a branch of SESSION (default: its default branch) on standard output
as it was written: each message as transcript.md shows it (sessfs show), after
the time that passed before it, as its "ts" records, divided by X (default 1:
real time). A wait is at most 5 s, however long the pause was; a message with
no time shows at once. --no-wait prints without waiting.

--from TURN starts at turn TURN and --to TURN ends after it (turns count from
1, as in show --turn and fork --at). --checkpoint NAME starts at checkpoint
NAME of the branch (see sessfs checkpoint) instead, with the heading of the
turn it is in. Played from the start, the transcript's header comes first.

--pause-at-tools waits for Enter after each message that calls a tool,
reading standard input (saying so on standard error); at the end of the input
it stops pausing. --json prints each stored line instead, as messages.jsonl
has it (events included), at the same pace, for programs.`)
	branch := c.fs.String("branch", "", "the branch to replay (default: the default branch)")
	speed := c.fs.Float64("speed", 1, "divide the recorded waits by `X` (2: twice as fast)")
	noWait := c.fs.Bool("no-wait", false, "print every message at once")
	from := c.fs.Int("from", 0, "start at this `TURN` (1-based)")
	to := c.fs.Int("to", 0, "end after this `TURN` (1-based)")
	checkpoint := c.fs.String("checkpoint", "", "start at checkpoint `NAME`")
	pause := c.fs.Bool("pause-at-tools", false, "wait for Enter after each tool call")
	asJSON := c.fs.Bool("json", false, "print the stored lines, one a line, as messages.jsonl")
	rest, code, ok := c.parse(args, 1, 1)
	if !ok {
		return code
	}
	switch {
	case c.fs.Changed("speed") && *noWait:
		return c.usageError("give --speed or --no-wait, not both")
	case *speed <= 0 || math.IsNaN(*speed) || math.IsInf(*speed, 0):
		return c.usageError(fmt.Sprintf("--speed %v: must be a number above 0", *speed))
	case c.fs.Changed("from") && c.fs.Changed("checkpoint"):
		return c.usageError("give --from or --checkpoint, not both")
	case c.fs.Changed("from") && *from < 1:
		return c.usageError(fmt.Sprintf("--from %d: turns count from 1", *from))
	case c.fs.Changed("to") && *to < 1:
		return c.usageError(fmt.Sprintf("--to %d: turns count from 1", *to))
	case c.fs.Changed("from") && c.fs.Changed("to") && *to < *from:
		return c.usageError(fmt.Sprintf("--to %d is before --from %d", *to, *from))
	}

	s, v, err := c.branchView(rest[0], *branch)
	if err != nil {
		return c.fail(err)
	}
	r := &replay{v: v, from: 0, to: v.Len(), jsonl: *asJSON, speed: *speed, pause: *pause,
		out: bufio.NewWriterSize(stdout, 64<<10), in: bufio.NewReader(stdin), prompt: stderr, sleep: sleep}
	if *noWait {
		r.speed = 0
	}
	if c.fs.Changed("from") {
		if r.from, _, err = v.TurnRange(*from); err != nil {
			return c.fail(err)
		}
	}
	if c.fs.Changed("checkpoint") {
		cp, err := backing.FindCheckpoint(v, *checkpoint)
		if err != nil {
			return c.fail(err)
		}
		r.from = cp.Index
		if c.fs.Changed("to") && *to < cp.Turn {
			return c.fail(fmt.Errorf("--to %d ends before checkpoint %q, made in turn %d", *to, cp.Name, cp.Turn))
		}
	}
	if c.fs.Changed("to") {
		if _, r.to, err = v.TurnRange(*to); err != nil {
			return c.fail(err)
		}
	}
	if !*asJSON && !c.fs.Changed("from") && !c.fs.Changed("checkpoint") {
		r.out.Write(render.MarkdownHead(fsnode.TranscriptHeader(s, v)))
	}
	if err := r.run(); err != nil {
		return c.fail(err)
	}
	return exitOK
}
