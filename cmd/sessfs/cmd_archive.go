package main

import "github.com/sessfs/sessfs/backing"

func runArchive(args []string) int {
	c := newCLI("archive", "SESSION...",
		"Moves sessions out of the default listing. An archived session keeps its\nname and can still be shown and appended to; 'sessfs ls --all' lists it.")
	return changeEach(c, args, (*backing.Store).Archive)
}

func runUnarchive(args []string) int {
	c := newCLI("unarchive", "SESSION...", "Brings archived sessions back to the default listing.")
	return changeEach(c, args, (*backing.Store).Unarchive)
}

// changeEach applies change to every session named in args, going on after
// a failure so that one bad name does not stop the others.
func changeEach(c *cli, args []string, change func(*backing.Store, string) error) int {
	rest, code, ok := c.parse(args, 1, -1)
	if !ok {
		return code
	}
	st, err := c.open()
	if err != nil {
		return c.fail(err)
	}
	for _, name := range rest {
		if err := change(st, name); err != nil {
			c.warn(err)
			code = exitFail
		}
	}
	return code
}
