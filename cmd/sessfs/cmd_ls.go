package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// sessionJSON is one object of `sessfs ls --json`; its keys are part of the
// command's interface, so they are spelled out here rather than taken from
// backing's types.
type sessionJSON struct {
	Name         string    `json:"name"`
	ID           string    `json:"id"`
	Title        string    `json:"title"`
	Messages     int       `json:"messages"`
	LastActivity time.Time `json:"last_activity,omitzero"`
	State        string    `json:"state"`
	Created      time.Time `json:"created,omitzero"`
	Updated      time.Time `json:"updated,omitzero"`
	Tags         []string  `json:"tags"`
	Cwd          string    `json:"cwd,omitempty"`
	Project      string    `json:"project,omitempty"`
	Model        string    `json:"model,omitempty"`
	Provider     string    `json:"provider,omitempty"`
	Parent       string    `json:"parent,omitempty"`
	Trashed      time.Time `json:"trashed,omitzero"`
	Error        string    `json:"error,omitempty"`
}

func toSessionJSON(in backing.SessionInfo) sessionJSON {
	out := sessionJSON{
		Name: in.Name, ID: in.ID, Title: in.Title, Messages: in.Messages,
		LastActivity: in.LastActivity, State: in.State, Created: in.Created, Updated: in.Updated,
		Tags: in.Tags, Cwd: in.Cwd, Project: in.Project, Model: in.Model, Provider: in.Provider,
		Parent: in.Parent, Trashed: in.Trashed,
	}
	if out.Tags == nil {
		out.Tags = []string{}
	}
	if in.Err != nil {
		out.Error = errorMessage(in.Err)
	}
	return out
}

func runLs(args []string) int {
	c := newCLI("ls", "[--json] [--all]",
		"Lists the active sessions, least recently active first (like ls -tr).\nWith --all, archived and trashed sessions too.")
	asJSON := c.fs.Bool("json", false, "print one JSON array of objects")
	all := c.fs.Bool("all", false, "include archived and trashed sessions, with a STATE column")
	if _, code, ok := c.parse(args, 0, 0); !ok {
		return code
	}
	st, err := c.open()
	if err != nil {
		return c.fail(err)
	}
	list, err := st.List(*all)
	if err != nil {
		return c.fail(err)
	}
	if *asJSON {
		out := make([]sessionJSON, 0, len(list))
		for _, s := range list {
			out = append(out, toSessionJSON(s))
		}
		if err := printJSON(out); err != nil {
			return c.fail(err)
		}
		return exitOK
	}
	if len(list) == 0 {
		return exitOK
	}
	tw := newTable(os.Stdout)
	if *all {
		fmt.Fprintln(tw, "NAME\tMESSAGES\tLAST ACTIVITY\tSTATE\tTITLE")
	} else {
		fmt.Fprintln(tw, "NAME\tMESSAGES\tLAST ACTIVITY\tTITLE")
	}
	for _, s := range list {
		title := shorten(s.Title, maxTitle)
		if s.Err != nil {
			title = "error: " + errorMessage(s.Err)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t", s.Name, s.Messages, localTime(s.LastActivity))
		if *all {
			fmt.Fprintf(tw, "%s\t", s.State)
		}
		fmt.Fprintf(tw, "%s\n", cell(title))
	}
	if err := tw.Flush(); err != nil {
		return c.fail(err)
	}
	return exitOK
}

// maxTitle is how much of a title a table row shows; --json has it whole.
const maxTitle = 72

// shorten cuts s to n runes, on a word boundary when there is one near,
// and marks the cut with an ellipsis.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := string(r[:n-1])
	// Back off to the last space unless the cut already ends a word.
	if i := strings.LastIndexByte(cut, ' '); r[n-1] != ' ' && i > len(cut)*2/3 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,.;:") + "…"
}
