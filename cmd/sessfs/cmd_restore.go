package main

import "fmt"

func runRestore(args []string) int {
	c := newCLI("restore", "[--as NAME] NAME|ID",
		"Brings a session back from the trash, by the name it had or by its id, and\nprints its name. Use --as when the old name is taken.")
	as := c.fs.String("as", "", "restore under this `NAME` instead of the old one")
	rest, code, ok := c.parse(args, 1, 1)
	if !ok {
		return code
	}
	st, err := c.open()
	if err != nil {
		return c.fail(err)
	}
	name, err := st.Restore(rest[0], *as)
	if err != nil {
		return c.fail(err)
	}
	fmt.Println(name)
	return exitOK
}
