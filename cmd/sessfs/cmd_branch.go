package main

import (
	"fmt"
	"os"
)

// runBranch dispatches `sessfs branch rename|rm`.
func runBranch(args []string) int {
	c := newCLI("branch", "(rename SESSION OLD NEW | rm SESSION NAME)",
		`Changes a session's branches:
  rename SESSION OLD NEW   renames branch OLD to NEW
  rm SESSION NAME          removes branch NAME (its log is kept in the session's trash folder)
Create branches with 'sessfs fork', list them with 'sessfs branches'.`)
	// Flags before the subcommand (--store) are the branch command's; the
	// rest of the line belongs to the subcommand.
	c.fs.SetInterspersed(false)
	rest, code, ok := c.parse(args, 0, -1)
	if !ok {
		return code
	}
	if len(rest) == 0 {
		return c.usageError("missing subcommand: rename or rm")
	}
	sub := rest[1:]
	if c.fs.Changed("store") {
		sub = append([]string{"--store", c.store}, sub...)
	}
	switch rest[0] {
	case "rename":
		return runBranchRename(sub)
	case "rm":
		return runBranchRm(sub)
	}
	return c.usageError(fmt.Sprintf("unknown subcommand %q: rename or rm", rest[0]))
}

func runBranchRename(args []string) int {
	c := newCLI("branch rename", "SESSION OLD NEW", "Renames branch OLD of SESSION to NEW. Its messages and forks are untouched.")
	rest, code, ok := c.parse(args, 3, 3)
	if !ok {
		return code
	}
	s, err := c.session(rest[0])
	if err != nil {
		return c.fail(err)
	}
	b, err := s.Branch(rest[1])
	if err != nil {
		return c.fail(err)
	}
	if err := s.RenameBranch(b.ID, rest[2]); err != nil {
		return c.fail(err)
	}
	return exitOK
}

func runBranchRm(args []string) int {
	c := newCLI("branch rm", "SESSION NAME",
		`Removes branch NAME of SESSION. The default branch cannot be removed, nor a
branch others were forked from. The branch's files are kept in the session's
trash folder.`)
	rest, code, ok := c.parse(args, 2, 2)
	if !ok {
		return code
	}
	s, err := c.session(rest[0])
	if err != nil {
		return c.fail(err)
	}
	b, err := s.Branch(rest[1])
	if err != nil {
		return c.fail(err)
	}
	if err := s.DeleteBranch(b.ID); err != nil {
		return c.fail(err)
	}
	fmt.Fprintf(os.Stdout, "removed branch %q; its messages are kept in the session's trash\n", rest[1])
	return exitOK
}
