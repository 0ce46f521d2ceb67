package main

func runRename(args []string) int {
	c := newCLI("rename", "OLD NEW",
		"Renames session OLD (active or archived; a name, id or unique prefix) to\nNEW. NEW must not be taken. The session's id, files and open handles are\nunaffected.")
	rest, code, ok := c.parse(args, 2, 2)
	if !ok {
		return code
	}
	st, err := c.open()
	if err != nil {
		return c.fail(err)
	}
	old, err := resolve(st, rest[0])
	if err != nil {
		return c.fail(err)
	}
	if err := st.Rename(old, rest[1]); err != nil {
		return c.fail(err)
	}
	return exitOK
}
