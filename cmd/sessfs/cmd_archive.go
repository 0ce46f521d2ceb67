package main

import (
	"fmt"

	"github.com/sessfs/sessfs/backing"
)

func runArchive(args []string) int {
	c := newCLI("archive", "SESSION...",
		"Moves sessions out of the default listing. An archived session keeps its\n"+
			"name and can still be shown and appended to; 'sessfs ls --all' lists it.\n"+
			"Says what became of each session; one that fails does not stop the others.")
	return changeEach(c, args, (backing.Store).Archive, func(name string) string {
		return fmt.Sprintf("archived %q; bring it back with: sessfs unarchive%s %s", name, c.storeArg(), shellQuote(name))
	})
}

func runUnarchive(args []string) int {
	c := newCLI("unarchive", "SESSION...",
		"Brings archived sessions back to the default listing. Says what became of\n"+
			"each session; one that fails does not stop the others.")
	return changeEach(c, args, (backing.Store).Unarchive, func(name string) string {
		return fmt.Sprintf("unarchived %q", name)
	})
}

// changeEach applies change to every session named in args, going on after
// a failure so that one bad name does not stop the others, and reports
// each outcome: done on standard output, failed on standard error, so a
// user who sees one error knows the other sessions did change.
func changeEach(c *cli, args []string, change func(backing.Store, string) error, done func(name string) string) int {
	rest, code, ok := c.parse(args, 1, -1)
	if !ok {
		return code
	}
	st, err := c.open()
	if err != nil {
		return c.fail(err)
	}
	for _, arg := range rest {
		name, err := resolve(st, arg)
		if err == nil {
			err = change(st, name)
		}
		if err != nil {
			c.warn(err)
			code = exitFail
			continue
		}
		fmt.Println(done(name))
	}
	return code
}
