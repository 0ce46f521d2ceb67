package main

import (
	"fmt"
	"path/filepath"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/importer"
)

func runNew(args []string) int {
	c := newCLI("new", "[--ephemeral] [--title T] [--cwd DIR] [--model M] [--tag T]... [NAME]",
		"Creates a session and prints its name. Without NAME the name is made of the\ndate, the time and a few hex digits, e.g. 20250102-1504-a1b2c3.\n\n"+
			"With --ephemeral, the session is made in the memory of the store's mount,\n"+
			"as mkdir MOUNT/tmp/NAME makes it, and the command prints its folder; gone\n"+
			"at unmount unless moved out (mv MOUNT/tmp/NAME MOUNT/). With no mount of the\n"+
			"store up, it is refused.")
	title := c.fs.String("title", "", "the session's title")
	cwd := c.fs.String("cwd", "", "the project `DIR` the session works in")
	model := c.fs.String("model", "", "the model the session uses")
	tags := c.fs.StringArray("tag", nil, "a tag; repeat for several")
	ephemeral := c.fs.Bool("ephemeral", false, "make the session in the memory of the store's mount (MOUNT/tmp/), not in the store")
	rest, code, ok := c.parse(args, 0, 1)
	if !ok {
		return code
	}
	name := ""
	if len(rest) == 1 {
		name = rest[0]
	}
	m := backing.Meta{Title: *title, Model: *model, Tags: *tags}
	if *cwd != "" {
		// A relative folder means nothing once the shell that typed it is
		// gone: store it absolute.
		abs, err := filepath.Abs(*cwd)
		if err != nil {
			return c.fail(err)
		}
		m.Cwd = abs
		// The remote names the project (backing.ProjectOf) even after
		// the folder moves; it is read now, while the folder is here.
		importer.RecordRemote(&m)
	}
	if *ephemeral {
		return newEphemeral(c, name, m)
	}
	st, err := c.open()
	if err != nil {
		return c.fail(err)
	}
	_, m, err = st.Create(name, m)
	if err != nil {
		return c.fail(err)
	}
	fmt.Println(m.Name)
	return exitOK
}
