package main

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
	p := &progress{verb: "indexing session"}
	err = f.Reindex(func(done, total int) { p.show(done-1, total, "") })
	p.clear()
	if err != nil {
		return c.fail(err)
	}
	return exitOK
}
