package main

import (
	"fmt"
	"os"
	"sort"

	"github.com/sessfs/sessfs/backing"
)

func runTrash(args []string) int {
	c := newCLI("trash", "",
		"Lists the sessions in the trash, oldest trashed first, with the id\n'sessfs restore' takes.")
	if _, code, ok := c.parse(args, 0, 0); !ok {
		return code
	}
	st, err := c.open()
	if err != nil {
		return c.fail(err)
	}
	all, err := st.List(true)
	if err != nil {
		return c.fail(err)
	}
	var list []backing.SessionInfo
	for _, s := range all {
		if s.State == backing.StateTrashed {
			list = append(list, s)
		}
	}
	if len(list) == 0 {
		return exitOK
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].Trashed.Before(list[j].Trashed) })
	tw := newTable(os.Stdout)
	fmt.Fprintln(tw, "ID\tNAME\tTRASHED\tTITLE")
	for _, s := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.ID, s.Name, localTime(s.Trashed), cell(s.Title))
	}
	if err := tw.Flush(); err != nil {
		return c.fail(err)
	}
	return exitOK
}
