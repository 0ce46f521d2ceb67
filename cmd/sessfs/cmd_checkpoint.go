package main

import (
	"fmt"
	"os"

	"github.com/sessfs/sessfs/backing"
)

func runCheckpoint(args []string) int {
	c := newCLI("checkpoint", "[--branch B] [--json] SESSION [NAME]",
		`Marks the head of branch B of SESSION (default: its default branch) as
checkpoint NAME and prints NAME: an event line appended to the branch,
{"role":"event","content":"","event":"checkpoint","data":{"name":"NAME"}},
which writing that line to the branch's append file does as well. NAME is
1-255 bytes of UTF-8 without '/', a control character or a leading '.'. A
name marked again moves to the new mark (the earlier line stays in
messages.jsonl); marking the head again where it stands already stores
nothing. Without NAME, lists the branch's checkpoints in order: the turn each
was made in, its line in messages.jsonl (0-based, events counted), the
visible messages before it (as fork --at-message counts) and its time.
sessfs replay --checkpoint NAME starts there; checkpoints/ in the mount
shows them.`)
	branch := c.fs.String("branch", "", "the branch `B` (default: the default branch)")
	asJSON := c.fs.Bool("json", false, "list as one JSON array (checkpoints/<name>'s fields)")
	rest, code, ok := c.parse(args, 1, 2)
	if !ok {
		return code
	}
	if len(rest) == 2 && *asJSON {
		return c.usageError("--json lists checkpoints: give no NAME")
	}
	if len(rest) == 2 {
		if _, err := backing.CheckpointEvent(rest[1]); err != nil {
			return c.usageError(errorMessage(err))
		}
	}
	s, v, err := c.branchView(rest[0], *branch)
	if err != nil {
		return c.fail(err)
	}
	if len(rest) == 1 {
		return listCheckpoints(c, v, *asJSON)
	}
	if _, err := backing.MarkCheckpoint(s, v, rest[1]); err != nil {
		return c.fail(err)
	}
	fmt.Println(rest[1])
	return exitOK
}

func listCheckpoints(c *cli, v backing.View, asJSON bool) int {
	cs, err := backing.Checkpoints(v)
	if err != nil {
		return c.fail(err)
	}
	if asJSON {
		if cs == nil {
			cs = []backing.Checkpoint{}
		}
		if err := printJSON(cs); err != nil {
			return c.fail(err)
		}
		return exitOK
	}
	tw := newTable(os.Stdout)
	fmt.Fprintln(tw, "NAME\tTURN\tMESSAGE\tVISIBLE\tTIME")
	for _, cp := range cs {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\n", cp.Name, cp.Turn, cp.Index, cp.Visible, localTime(cp.Time))
	}
	if err := tw.Flush(); err != nil {
		return c.fail(err)
	}
	return exitOK
}
