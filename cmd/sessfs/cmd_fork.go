package main

import (
	"fmt"

	"github.com/sessfs/sessfs/backing"
)

func runFork(args []string) int {
	c := newCLI("fork", "[--from B] [--at TURN | --at-message N] SESSION NEWBRANCH",
		`Creates branch NEWBRANCH of SESSION and prints its name. It starts with the
messages of branch B (default: the default branch): all of them, or those up
to the end of turn TURN (--at), or the first N visible messages (--at-message,
counted as sessfs branches counts them: events, the lines an import keeps that
are not conversation, are not counted). No message is copied.`)
	from := c.fs.String("from", "", "the branch to fork (default: the default branch)")
	atTurn := c.fs.Int("at", 0, "keep the messages up to the end of this `TURN` (1-based)")
	atMsg := c.fs.Int("at-message", 0, "keep the first `N` visible messages (events not counted)")
	rest, code, ok := c.parse(args, 2, 2)
	if !ok {
		return code
	}
	name, newBranch := rest[0], rest[1]
	if c.fs.Changed("at") && c.fs.Changed("at-message") {
		return c.usageError("give --at or --at-message, not both")
	}
	if c.fs.Changed("at-message") && *atMsg < 0 {
		return c.usageError(fmt.Sprintf("--at-message %d: must be 0 or more", *atMsg))
	}
	if c.fs.Changed("at") && *atTurn < 1 {
		return c.usageError(fmt.Sprintf("--at %d: turns count from 1", *atTurn))
	}
	s, err := c.session(name)
	if err != nil {
		return c.fail(err)
	}
	// The source branch is looked up once, by name; everything after
	// goes by its id, so a rename meanwhile cannot switch branches.
	src, err := s.Branch(*from)
	if err != nil {
		return c.fail(err)
	}
	at := backing.Head
	switch {
	case c.fs.Changed("at-message"):
		v, err := s.ViewID(src.ID)
		if err != nil {
			return c.fail(err)
		}
		if at, err = v.AfterVisible(*atMsg); err != nil {
			return c.fail(err)
		}
	case c.fs.Changed("at"):
		v, err := s.ViewID(src.ID)
		if err != nil {
			return c.fail(err)
		}
		_, to, err := v.TurnRange(*atTurn)
		if err != nil {
			return c.fail(err)
		}
		at = to
	}
	b, err := s.Fork(src.ID, at, newBranch)
	if err != nil {
		return c.fail(err)
	}
	fmt.Println(b.Name)
	return exitOK
}
