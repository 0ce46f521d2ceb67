package main

import (
	"fmt"

	"github.com/sessfs/sessfs/backing"
)

func runLast(args []string) int {
	c := newCLI("last", "[--project P] [--agent A] [--tag T]",
		"Prints the name of the most recently active session (of project P, agent A,\n"+
			"tag T, when given), for scripts: cd \"$MOUNT/$(sessfs last)\", or\n"+
			"sessfs show \"$(sessfs last --project .)\" for the current folder's project.\n"+
			"Fails when no active session matches.")
	f := newFilter(c)
	if _, code, ok := c.parse(args, 0, 0); !ok {
		return code
	}
	q, err := f.query(false)
	if err != nil {
		return c.usageError(err.Error())
	}
	st, err := c.open()
	if err != nil {
		return c.fail(err)
	}
	es, err := backing.CatalogOf(st, q)
	if err != nil {
		return c.fail(err)
	}
	es = f.apply(es) // newest first, as the catalog is
	if len(es) == 0 {
		return c.fail(fmt.Errorf("no session%s", f.describe()))
	}
	fmt.Println(es[0].Name)
	return exitOK
}
