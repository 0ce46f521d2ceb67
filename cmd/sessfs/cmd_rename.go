package main

func runRename(args []string) int {
	c := newCLI("rename", "OLD NEW",
		"Renames session OLD (active or archived) to NEW. NEW must not be taken.\nThe session's id, files and open handles are unaffected.")
	rest, code, ok := c.parse(args, 2, 2)
	if !ok {
		return code
	}
	st, err := c.open()
	if err != nil {
		return c.fail(err)
	}
	if err := st.Rename(rest[0], rest[1]); err != nil {
		return c.fail(err)
	}
	return exitOK
}
