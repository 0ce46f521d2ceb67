package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/sessfs/sessfs/backing"
)

func runRevertCode(args []string) int {
	c := newCLI("revert-code", "[--branch B] [--dry-run] [--force] --to-turn N SESSION",
		`Puts the files back as they were after turn N of branch B of SESSION
(default: its default branch): every file snapshotted in a turn after N (by
sessfs snapshot, or by Claude Code's own file history in an imported
session, from its copies in $CLAUDE_CONFIG_DIR or ~/.claude) gets the
content and mode its earliest such snapshot recorded, its state before the
first turn after N that edited it; a file that did not exist then is
deleted, one deleted since is made again. N = 0 goes back to before the
first turn. Files no turn after N snapshotted are not touched,
nor is the conversation. Prints each change: "restore", "create" or "delete"
and the path; --dry-run prints them and changes nothing.

A file that exists and was modified after the last turn that snapshotted it
ended (its last message's time), with a content no snapshot recorded, may hold
work that is not the agent's: then nothing is changed, the files are named,
and the exit code is 1, unless --force. So is a path that is not a regular
file. Revert between turns: a turn still going on has not ended. Each file is
replaced atomically; a failure stops at that file, the ones before it changed.`)
	branch := c.fs.String("branch", "", "the branch `B` (default: the default branch)")
	to := c.fs.Int("to-turn", 0, "the turn `N` whose end state to go back to (0: before the first turn); required")
	dry := c.fs.Bool("dry-run", false, "print the changes, make none")
	force := c.fs.Bool("force", false, "overwrite and delete files changed since the agent's last turn on them")
	rest, code, ok := c.parse(args, 1, 1)
	if !ok {
		return code
	}
	if !c.fs.Changed("to-turn") || *to < 0 {
		return c.usageError("--to-turn N is required: 0 or a turn of the branch")
	}
	s, v, err := c.branchView(rest[0], *branch)
	if err != nil {
		return c.fail(err)
	}
	m, err := s.Meta()
	if err != nil {
		return c.fail(err)
	}
	all, err := backing.Snapshots(v, m, agentFileHistory())
	if err != nil {
		return c.fail(err)
	}
	steps, err := backing.PlanRevert(v, all, *to)
	if err != nil {
		return c.fail(err)
	}
	var unsafe []string
	for _, st := range steps {
		if st.Unsafe != "" {
			unsafe = append(unsafe, fmt.Sprintf("%s %s (%s)", st.Action, st.Path, st.Unsafe))
		}
	}
	if len(unsafe) > 0 && !*force {
		return c.fail(fmt.Errorf("refused, nothing was changed: %s may lose work that is not the agent's: %s (--force does it anyway)",
			backing.Plural(len(unsafe), "change"), strings.Join(unsafe, "; ")))
	}
	if *dry {
		printSteps(steps)
		return exitOK
	}
	n, err := backing.ApplyRevert(v, steps)
	printSteps(steps[:n])
	if err != nil {
		return c.fail(err)
	}
	return exitOK
}

func printSteps(steps []backing.RevertStep) {
	var b strings.Builder
	for _, st := range steps {
		fmt.Fprintf(&b, "%-7s %s\n", st.Action, st.Path)
	}
	os.Stdout.WriteString(b.String())
}
