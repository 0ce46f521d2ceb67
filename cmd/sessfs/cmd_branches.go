package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/fsnode"
)

// branchJSON is one object of `sessfs branches --json`.
type branchJSON struct {
	Name     string    `json:"name"`
	ID       string    `json:"id"`
	Default  bool      `json:"default"`
	Messages int       `json:"messages"`
	Parent   string    `json:"parent,omitempty"`    // name
	ParentID string    `json:"parent_id,omitempty"` // id
	ForkedAt *int      `json:"forked_at,omitempty"` // messages of the parent's view kept
	Created  time.Time `json:"created"`
	Error    string    `json:"error,omitempty"`
}

func runBranches(args []string) int {
	c := newCLI("branches", "[--json | --tree] SESSION",
		`Lists the branches of SESSION, the default one first and marked '*':
MESSAGES counts the branch's visible messages with its ancestry resolved,
PARENT is the branch its history continues and FORKED AT how many of the
parent's visible messages it starts with. Events (the lines an import keeps
that are not conversation) are not counted; they are in messages.jsonl and
export.json, whose positions therefore include them.

--tree draws the fork tree instead, as the session folder's branches.txt
shows it: each branch under its parent, with its messages and fork point.`)
	asJSON := c.fs.Bool("json", false, "print one JSON array of objects")
	asTree := c.fs.Bool("tree", false, "draw the fork tree, as branches.txt does")
	rest, code, ok := c.parse(args, 1, 1)
	if !ok {
		return code
	}
	if *asJSON && *asTree {
		return c.usageError("give --json or --tree, not both")
	}
	s, err := c.session(rest[0])
	if err != nil {
		return c.fail(err)
	}
	if *asTree {
		tree, _, err := fsnode.BranchTree(s)
		if err == nil {
			_, err = os.Stdout.Write(tree)
		}
		if err != nil {
			return c.fail(err)
		}
		return exitOK
	}
	list, err := s.Branches()
	if err != nil {
		return c.fail(err)
	}
	byID := map[string]backing.Branch{}
	for _, b := range list {
		byID[b.ID] = b
	}
	rows := make([]branchJSON, 0, len(list))
	failed := false
	for _, b := range list {
		row, err := describeBranch(s, b, byID)
		if err != nil {
			c.warn(fmt.Errorf("branch %q: %w", b.Name, err))
			row.Error = errorMessage(err)
			failed = true
		}
		rows = append(rows, row)
	}

	if *asJSON {
		if err := printJSON(rows); err != nil {
			return c.fail(err)
		}
	} else {
		tw := newTable(os.Stdout)
		fmt.Fprintln(tw, "  NAME\tMESSAGES\tPARENT\tFORKED AT")
		for _, r := range rows {
			mark, msgs, parent, at := " ", strconv.Itoa(r.Messages), "-", "-"
			if r.Default {
				mark = "*"
			}
			if r.Error != "" {
				msgs = "?"
			}
			if r.Parent != "" {
				parent = r.Parent
			}
			if r.ForkedAt != nil {
				at = strconv.Itoa(*r.ForkedAt)
			}
			fmt.Fprintf(tw, "%s %s\t%s\t%s\t%s\n", mark, r.Name, msgs, parent, at)
		}
		if err := tw.Flush(); err != nil {
			return c.fail(err)
		}
	}
	if failed {
		return exitFail
	}
	return exitOK
}

// describeBranch fills one row; on error the row still has the branch's name.
func describeBranch(s backing.Session, b backing.Branch, byID map[string]backing.Branch) (branchJSON, error) {
	row := branchJSON{Name: b.Name, ID: b.ID, Default: b.IsDefault(), Created: b.Created}
	v, err := s.ViewID(b.ID)
	if err != nil {
		return row, err
	}
	row.Messages = v.Visible()
	if b.IsDefault() {
		return row, nil
	}
	p, ok := byID[b.Parent]
	if !ok {
		return row, fmt.Errorf("parent branch id %s: %w", b.Parent, backing.ErrNotFound)
	}
	row.Parent, row.ParentID = p.Name, p.ID
	n := v.VisibleBefore(v.Inherited())
	row.ForkedAt = &n
	return row, nil
}
