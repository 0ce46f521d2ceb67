package main

import (
	"fmt"
	"os"
)

func runIndex(args []string) int {
	c := newCLI("index", "--rebuild",
		`Builds the search index again from the store. The index is derived: sessfs
keeps it up to date as sessions change and rebuilds it by itself when it is
missing or damaged, so this is only needed to have the work done now (after
restoring a store from a backup, say), rather than by the next search.`)
	rebuild := c.fs.Bool("rebuild", false, "throw the index away and build it again")
	if _, code, ok := c.parse(args, 0, 0); !ok {
		return code
	}
	if !*rebuild {
		return c.usageError("say --rebuild to build the index again")
	}
	f, err := c.finder()
	if err != nil {
		return c.fail(err)
	}
	tty := colorful(os.Stderr)
	err = f.Reindex(func(done, total int) {
		if tty && (done == total || done%50 == 0) {
			fmt.Fprintf(os.Stderr, "\rindexing sessions: %d of %d", done, total)
			if done == total {
				fmt.Fprintln(os.Stderr)
			}
		}
	})
	if err != nil {
		return c.fail(err)
	}
	return exitOK
}
