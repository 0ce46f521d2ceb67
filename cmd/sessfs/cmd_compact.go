package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sessfs/sessfs/backing"
)

func runCompact(args []string) int {
	c := newCLI("compact", "[--branch B] [--at TURN] --summary FILE|- [--model M] [--name NEW] SESSION",
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
changed. compaction.json in the mount lists a branch's compactions.`)
	branch := c.fs.String("branch", "", "the branch `B` to compact (default: the default branch)")
	at := c.fs.Int("at", 0, "the last `TURN` the summary stands for (default: the last turn)")
	summary := c.fs.String("summary", "", "read the summary from `FILE`, or from standard input for -")
	model := c.fs.String("model", "", "record `M` as the model that wrote the summary")
	name := c.fs.String("name", "", "name the new branch `NEW` (default: B-compact-N)")
	rest, code, ok := c.parse(args, 1, 1)
	if !ok {
		return code
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
