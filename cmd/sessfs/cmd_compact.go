package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/sessfs/sessfs/backing"
)

func runCompact(args []string) int {
	c := newCLI("compact", "[--branch B] (--summary FILE|- [--at TURN] [--model M] [--name NEW] | --list [--json]) SESSION",
		`Makes a new branch of SESSION whose history is a summary of turns 1 to TURN
of branch B (default: the default branch), followed by copies of the turns
after TURN, and prints its name. Without --at the summary stands for every
turn, as an agent's own /compact does, and the new branch holds the summary
alone; TURN is a turn as turns/<n>/ numbers them. The summary is read from
FILE, or from standard input for -, one trailing newline dropped; you (or a
model: name it with --model) write it.

The new branch is named NEW (default: B-compact-N, the first free N), a fork
of B at 0 in the fork tree. It starts with an event line recording the
compaction,
{"role":"event","content":"","event":"compaction","data":{"summary":"…","boundary_turn":TURN,"from_branch":"B","from_branch_id":"…","model":"M"}},
then the summary as a message {"role":"user","context":"compaction","content":"…"},
which opens no turn and shows in transcripts as a compaction marker, then the
kept messages byte for byte. Branch B and every other branch are not
changed.

With --list, makes nothing and lists the compactions of branch B instead, as
compaction.json in the mount does: those sessfs made, and those imported from
an agent's session (Claude Code's compact boundaries, Codex's compacted
lines), each with the turn it is in, the last turn it stands for, its time,
the summarizer's model when recorded and its summary's first line (all of it
with --json).`)
	branch := c.fs.String("branch", "", "the branch `B` to compact (default: the default branch)")
	at := c.fs.Int("at", 0, "the last `TURN` the summary stands for (default: the last turn)")
	summary := c.fs.String("summary", "", "read the summary from `FILE`, or from standard input for -")
	model := c.fs.String("model", "", "record `M` as the model that wrote the summary")
	name := c.fs.String("name", "", "name the new branch `NEW` (default: B-compact-N)")
	list := c.fs.Bool("list", false, "list the branch's compactions, make none")
	asJSON := c.fs.Bool("json", false, "with --list: one JSON array, as compaction.json")
	rest, code, ok := c.parse(args, 1, 1)
	if !ok {
		return code
	}
	if *list {
		for _, f := range []string{"at", "summary", "model", "name"} {
			if c.fs.Changed(f) {
				return c.usageError(fmt.Sprintf("--list makes no compaction: --%s goes without it", f))
			}
		}
		_, v, err := c.branchView(rest[0], *branch)
		if err != nil {
			return c.fail(err)
		}
		return listCompactions(c, v, *asJSON)
	}
	if *asJSON {
		return c.usageError("--json goes with --list")
	}
	if !c.fs.Changed("summary") {
		return c.usageError("--summary FILE|- is required: the summary the new branch starts with")
	}
	if c.fs.Changed("at") && *at < 1 {
		return c.usageError(fmt.Sprintf("--at %d: turns count from 1", *at))
	}
	text, err := readSummary(*summary)
	if err != nil {
		return c.fail(err)
	}
	s, err := c.session(rest[0])
	if err != nil {
		return c.fail(err)
	}
	// The branch is looked up once, by name; the compaction goes by id.
	b, err := s.Branch(*branch)
	if err != nil {
		return c.fail(err)
	}
	done, err := backing.Compact(s, b.ID, backing.CompactOptions{At: *at, Summary: text, Model: *model, Name: *name})
	if err != nil {
		return c.fail(err)
	}
	fmt.Println(done.Branch.Name)
	return exitOK
}

// readSummary reads a summary from path, or from standard input for "-",
// one trailing newline dropped as a text append drops it.
func readSummary(path string) (string, error) {
	var data []byte
	var err error
	if path == "-" {
		data, err = io.ReadAll(os.Stdin)
		if err != nil {
			return "", fmt.Errorf("read standard input: %w", err)
		}
	} else if data, err = os.ReadFile(path); err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(data), "\n"), nil
}

func listCompactions(c *cli, v backing.View, asJSON bool) int {
	cs, err := backing.Compactions(v)
	if err != nil {
		return c.fail(err)
	}
	if asJSON {
		if cs == nil {
			cs = []backing.Compaction{}
		}
		if err := printJSON(cs); err != nil {
			return c.fail(err)
		}
		return exitOK
	}
	tw := newTable(os.Stdout)
	fmt.Fprintln(tw, "TURN\tSTANDS FOR\tKIND\tTIME\tMODEL\tSUMMARY")
	for _, k := range cs {
		kind := k.Kind
		if k.Marker != "" {
			kind += " (" + k.Marker + ")"
		}
		stands := "turns 1-" + strconv.Itoa(k.BoundaryTurn)
		if k.FromBranch != "" {
			stands += " of " + k.FromBranch
		}
		if k.BoundaryTurn < 1 {
			stands = "none"
		}
		model := k.Model
		if model == "" {
			model = "-"
		}
		first, _, _ := strings.Cut(strings.TrimSpace(k.Summary), "\n")
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", k.Turn, stands, kind, localTime(k.Time), model, shorten(first, 60))
	}
	if err := tw.Flush(); err != nil {
		return c.fail(err)
	}
	return exitOK
}
