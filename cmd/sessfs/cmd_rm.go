package main

import (
	"fmt"

	"github.com/sessfs/sessfs/backing"
)

func runRm(args []string) int {
	c := newCLI("rm", "SESSION...",
		"Moves sessions to the trash. Nothing is deleted: 'sessfs restore' brings a\nsession back, 'sessfs trash' lists the trash and 'sessfs sweep --purge-after'\nempties it.")
	rest, code, ok := c.parse(args, 1, -1)
	if !ok {
		return code
	}
	st, err := c.open()
	if err != nil {
		return c.fail(err)
	}
	code = exitOK
	for _, arg := range rest {
		// The id is what identifies the session in the trash, where
		// several sessions may have had the same name.
		name, err := resolve(st, arg)
		var s backing.Session
		if err == nil {
			s, err = st.Session(name)
		}
		if err == nil {
			err = st.Trash(name)
		}
		if err != nil {
			c.warn(err)
			code = exitFail
			continue
		}
		fmt.Printf("moved %q to the trash; restore it with: sessfs restore%s %s\n",
			name, c.storeArg(), s.ID())
	}
	return code
}
