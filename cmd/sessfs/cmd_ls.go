package main

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/importer"
)

// sessionJSON is one object of `sessfs ls --json`; its keys are part of the
// command's interface (the README lists them), so they are spelled out
// here rather than taken from backing's types.
type sessionJSON struct {
	Name         string    `json:"name"`
	ID           string    `json:"id"`
	State        string    `json:"state"`
	Title        string    `json:"title"`
	Agent        string    `json:"agent"`
	Project      string    `json:"project"`
	Tags         []string  `json:"tags"`
	Messages     int       `json:"messages"`
	Bytes        int64     `json:"bytes"`
	Tokens       int64     `json:"tokens"`
	Usage        usageJSON `json:"usage"`
	CostUSD      *float64  `json:"cost_usd"` // null when a model that spent has no price
	cost         string    // the COST cell: backing.UsageDoc's, as sessfs usage shows it
	LastActivity time.Time `json:"last_activity,omitzero"`
	Created      time.Time `json:"created,omitzero"`
	Updated      time.Time `json:"updated,omitzero"`
	Cwd          string    `json:"cwd,omitempty"`
	Model        string    `json:"model,omitempty"`
	Provider     string    `json:"provider,omitempty"`
	Parent       string    `json:"parent,omitempty"`
	Trashed      time.Time `json:"trashed,omitzero"`
	// SourceGone is when sync found the agent's file of an imported
	// session deleted; the session is all there is of it now.
	SourceGone time.Time `json:"source_gone,omitzero"`
	Error      string    `json:"error,omitempty"`
}

type usageJSON struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cache_read"`
	CacheWrite int64 `json:"cache_write"`
	Reasoning  int64 `json:"reasoning"`
}

// row is one session of a listing: its catalog entry, what only its
// meta.json holds (cwd, model, …), and why the session cannot be read if
// it cannot: its meta, or its default branch (a log it may not read). The
// session is opened for the rows shown alone, after filtering and -n, so
// that ls -n 10 of a large store reads ten sessions, not all of them, and
// a catalog kept by an index still shows the damage of what it lists.
func row(st backing.Store, e backing.Entry) sessionJSON {
	doc := backing.NewUsageDoc(e.ByModel)
	out := sessionJSON{
		Name: e.Name, ID: e.ID, State: e.State, Title: e.Title, Agent: e.Agent, Project: e.Project,
		Tags: e.Tags, Messages: e.Messages, Bytes: e.Bytes, Tokens: doc.Total, Usage: usageJSON(doc.Usage),
		CostUSD: doc.CostUSD, cost: costCell(doc), LastActivity: e.LastActivity, Created: e.Created,
	}
	if out.Tags == nil {
		out.Tags = []string{}
	}
	if doc.Usage.IsZero() {
		out.cost = "-"
	}
	s, err := st.SessionByID(e.ID)
	var m backing.Meta
	if err == nil {
		m, err = s.Meta()
	}
	if err != nil {
		out.Error = errorMessage(err)
		return out
	}
	out.Updated, out.Cwd, out.Model, out.Provider, out.Parent, out.Trashed = m.Updated, m.Cwd, m.Model, m.Provider, m.Parent, m.Trashed
	if o, ok := importer.OriginOf(m); ok && o.Gone != "" {
		out.SourceGone, _ = time.Parse(time.RFC3339, o.Gone)
	}
	if _, err := s.ViewID(""); err != nil {
		out.Error = errorMessage(err)
	}
	return out
}

// filter is the flags that choose sessions of the catalog, for ls and
// last alike.
type filter struct {
	project, agent, tag *string
}

func newFilter(c *cli) filter {
	return filter{
		project: c.fs.String("project", "", "only the sessions of project `P` (or its owner or repository alone; . is the current folder's)"),
		agent:   c.fs.String("agent", "", "only the sessions of agent `A` (claude-code, codex, gemini, sessfs)"),
		tag:     c.fs.String("tag", "", "only the sessions tagged `T` (or with a tag below it, T/…)"),
	}
}

// apply keeps the entries the flags choose, in their order.
// query is the catalog the flags ask for: --tag narrows it (the rule of
// by-tag/, backing.CatalogQuery); --project and --agent are apply's.
func (f filter) query(all bool) (backing.CatalogQuery, error) {
	q := backing.CatalogQuery{All: all, Tag: backing.GroupPath(*f.tag)}
	if *f.tag != "" && q.Tag == "" {
		return q, fmt.Errorf("--tag %q: no tag could be named so", *f.tag)
	}
	return q, nil
}

// apply keeps the sessions of the catalog that --project and --agent
// choose.
func (f filter) apply(es []backing.Entry) []backing.Entry {
	if *f.project == "." {
		*f.project = projectHere() // and describe says which
	}
	return slices.DeleteFunc(es, func(e backing.Entry) bool {
		return *f.project != "" && !backing.MatchProject(e.Project, *f.project) ||
			*f.agent != "" && !strings.EqualFold(e.Agent, *f.agent)
	})
}

// describe says what the flags chose, for "no session of …".
func (f filter) describe() string {
	var out []string
	for _, x := range []struct{ what, v string }{{"project", *f.project}, {"agent", *f.agent}, {"tag", *f.tag}} {
		if x.v != "" {
			out = append(out, fmt.Sprintf("%s %q", x.what, x.v))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return " of " + strings.Join(out, ", ")
}

// projectHere is the project of a session that would run in the current
// folder now: what --project . means.
func projectHere() string {
	wd, err := os.Getwd()
	if err != nil {
		return backing.NoProject
	}
	m := backing.Meta{Cwd: wd}
	importer.RecordRemote(&m)
	return backing.ProjectOf(m)
}

// sorts are ls's orders; ties keep the catalog's order, newest first.
var sorts = map[string]func(a, b backing.Entry) int{
	"recent": func(a, b backing.Entry) int { return 0 },
	"name":   func(a, b backing.Entry) int { return cmp.Compare(a.Name, b.Name) },
	"size":   func(a, b backing.Entry) int { return cmp.Compare(b.Bytes, a.Bytes) },
	"tokens": func(a, b backing.Entry) int { return cmp.Compare(b.ByModel.Total().Total(), a.ByModel.Total().Total()) },
}

func runLs(args []string) int {
	c := newCLI("ls", "[--sort recent|name|size|tokens] [-n N] [--project P] [--agent A] [--tag T] [--all] [--json]",
		"Lists the active sessions, most recently active first (like ls -t): name,\n"+
			"visible messages, tokens spent, last activity, project and title. With --all,\n"+
			"archived and trashed sessions too, with a STATE column. --json prints every\n"+
			"field of each session (the README lists them).")
	sortBy := c.fs.String("sort", "recent", "the order: recent (newest first), name, size (largest first) or tokens (most first)")
	limit := c.fs.IntP("n", "n", 0, "list the first `N` sessions only")
	f := newFilter(c)
	asJSON := c.fs.Bool("json", false, "print one JSON array of objects")
	all := c.fs.Bool("all", false, "include archived and trashed sessions, with a STATE column")
	if _, code, ok := c.parse(args, 0, 0); !ok {
		return code
	}
	order, ok := sorts[*sortBy]
	if !ok {
		return c.usageError(fmt.Sprintf("--sort %q: recent, name, size or tokens", *sortBy))
	}
	if *limit < 0 {
		return c.usageError("-n must be a positive number")
	}
	q, err := f.query(*all)
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
	es = f.apply(es)
	slices.SortStableFunc(es, order)
	if *limit > 0 && len(es) > *limit {
		es = es[:*limit]
	}
	rows := make([]sessionJSON, 0, len(es))
	for _, e := range es {
		rows = append(rows, row(st, e))
	}
	if *asJSON {
		if err := printJSON(rows); err != nil {
			return c.fail(err)
		}
		return exitOK
	}
	if len(rows) == 0 {
		return exitOK
	}
	tw := newTable(os.Stdout)
	state := ""
	if *all {
		state = "STATE\t"
	}
	fmt.Fprintf(tw, "NAME\tMESSAGES\tTOKENS\tCOST\tLAST ACTIVITY\t%sPROJECT\tTITLE\n", state)
	for _, r := range rows {
		title := shorten(r.Title, maxTitle)
		if !r.SourceGone.IsZero() {
			title = "(source gone) " + title
		}
		if r.Error != "" {
			title = "error: " + r.Error
		}
		if *all {
			state = r.State + "\t"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s%s\t%s\n", r.Name, r.Messages, humanCount(r.Tokens), r.cost,
			localTime(r.LastActivity), state, cell(r.Project), cell(title))
	}
	if err := tw.Flush(); err != nil {
		return c.fail(err)
	}
	return exitOK
}

// humanCount shows a count in a table: 950, 12.3k, 4.5M; "-" for none.
func humanCount(n int64) string {
	switch {
	case n == 0:
		return "-"
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	case n < 1_000_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	}
	return fmt.Sprintf("%.1fG", float64(n)/1e9)
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
