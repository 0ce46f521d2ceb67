package main

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sessfs/sessfs/backing"
)

// usageBys are the groupings of `sessfs usage --by`, in the order its
// help lists them.
var usageBys = []string{"day", "project", "model", "session"}

// usageRow is one row of `sessfs usage --json`: the group's key (a day
// YYYY-MM-DD, a project, a model, a session's name) and usage.json's
// document of it.
type usageRow struct {
	Key string `json:"key"`
	backing.UsageDoc
}

// usageReport is `sessfs usage --json`.
type usageReport struct {
	By    string           `json:"by"`
	Rows  []usageRow       `json:"rows"`
	Total backing.UsageDoc `json:"total"`
}

func runUsage(args []string) int {
	c := newCLI("usage", "[--by day|project|model|session] [--since D] [--until D] [--json] [SESSION…]",
		`Reports the tokens the sessions spent and what they cost: a row a day (the
default), project, model or session, and a TOTAL line. INPUT is prompt
tokens neither read from nor written to a cache, CACHE READ and CACHE WRITE
the prompt cache's, OUTPUT everything the model wrote and REASONING the part
of it that was reasoning (not added again to TOTAL). Each API response counts once, in
the day of its message; every branch of a session counts, each message
once, so a fork never counts its history twice. Archived sessions count;
sessions in the trash do not. COST is at the list prices of the table in
the repository (backing/prices.json): '-' where no model of the row has a
price, and marked '*' where some have none, which it then leaves out.
With SESSION names, only those sessions.`)
	by := c.fs.String("by", "day", "group rows by `KEY`: day, project, model or session")
	sinceArg := c.fs.String("since", "", "only what was spent at or after `D` (2026-11-24, 2026-11-24T15:04, 7d, 36h)")
	untilArg := c.fs.String("until", "", "only what was spent before `D`; a day given is included")
	asJSON := c.fs.Bool("json", false, "print one JSON document: by, rows (key and usage.json's fields) and total")
	rest, code, ok := c.parse(args, 0, -1)
	if !ok {
		return code
	}
	if !slices.Contains(usageBys, *by) {
		return c.usageError(fmt.Sprintf("--by %q: use %s", *by, strings.Join(usageBys, ", ")))
	}
	now := time.Now()
	since, err := parseWhen(*sinceArg, now, false)
	if err != nil {
		return c.usageError("--since: " + err.Error())
	}
	until, err := parseWhen(*untilArg, now, true)
	if err != nil {
		return c.usageError("--until: " + err.Error())
	}
	st, err := c.open()
	if err != nil {
		return c.fail(err)
	}
	sessions, err := usageSessions(st, rest)
	if err != nil {
		return c.fail(err)
	}

	groups := map[string]backing.ModelUsage{}
	failed := false
	for _, s := range sessions {
		if s.err != nil { // listed with its error; the others still count
			c.warn(fmt.Errorf("session %q left out: %w", s.name, s.err))
			failed = true
			continue
		}
		var su backing.SessionUsage
		err := su.Update(s.s, func(sp backing.Spend) {
			if !inRange(sp.Time, since, until) {
				return
			}
			key := s.name
			switch *by {
			case "day":
				key = "(no date)"
				if !sp.Time.IsZero() {
					key = sp.Time.Local().Format(time.DateOnly)
				}
			case "project":
				key = s.project
			case "model":
				key = sp.Model
			}
			if groups[key] == nil {
				groups[key] = backing.ModelUsage{}
			}
			groups[key].Add(sp.Model, sp.Usage)
		})
		if err != nil {
			c.warn(fmt.Errorf("session %q: %w", s.name, err))
			failed = true
		}
	}

	report := usageReport{By: *by, Rows: []usageRow{}}
	total := backing.ModelUsage{}
	for key, m := range groups {
		report.Rows = append(report.Rows, usageRow{key, backing.NewUsageDoc(m)})
		total.AddAll(m)
	}
	report.Total = backing.NewUsageDoc(total)
	slices.SortFunc(report.Rows, func(a, b usageRow) int {
		if *by == "day" {
			return strings.Compare(a.Key, b.Key)
		}
		return cmp.Or(cmp.Compare(b.Total, a.Total), strings.Compare(a.Key, b.Key))
	})
	if *asJSON {
		err = printJSON(report)
	} else {
		err = printUsage(os.Stdout, report)
	}
	if err != nil {
		return c.fail(err)
	}
	if failed {
		return exitFail
	}
	return exitOK
}

// usageSession is a session the report reads, or the error that keeps it
// from reading one the store lists.
type usageSession struct {
	s       backing.Session
	name    string
	project string
	err     error
}

// usageSessions opens the sessions named, or every active and archived
// one.
func usageSessions(st backing.Store, names []string) ([]usageSession, error) {
	var out []usageSession
	add := func(s backing.Session, name string, m backing.Meta) {
		p := backing.ProjectOf(m)
		if p == "" {
			p = "(none)"
		}
		out = append(out, usageSession{s: s, name: name, project: p})
	}
	if len(names) > 0 {
		for _, name := range names {
			s, err := st.Session(name)
			if err != nil {
				return nil, err
			}
			m, err := s.Meta()
			if err != nil {
				return nil, fmt.Errorf("session %q: %w", name, err)
			}
			add(s, name, m)
		}
		return out, nil
	}
	list, err := st.List(true)
	if err != nil {
		return nil, err
	}
	for _, info := range list {
		if info.State == backing.StateTrashed {
			continue // what the trash spent is gone with it
		}
		if info.Err != nil {
			out = append(out, usageSession{name: info.Name, err: info.Err})
			continue
		}
		s, err := st.SessionByID(info.ID)
		if err != nil {
			out = append(out, usageSession{name: info.Name, err: err})
			continue
		}
		add(s, info.Name, info.Meta)
	}
	return out, nil
}

// inRange reports whether t is in [since, until), either bound zero for
// none; a spend of no time is in no range.
func inRange(t, since, until time.Time) bool {
	if since.IsZero() && until.IsZero() {
		return true
	}
	return !t.IsZero() && !t.Before(since) && (until.IsZero() || t.Before(until))
}

// printUsage writes the report as a table: numbers right-aligned with
// thousands separated, a TOTAL line, and a note naming the models that
// have no price.
func printUsage(w io.Writer, r usageReport) error {
	rows := [][]string{{strings.ToUpper(r.By), "INPUT", "OUTPUT", "CACHE READ", "CACHE WRITE", "REASONING", "TOTAL", "COST"}}
	line := func(key string, d backing.UsageDoc) []string {
		return []string{cell(key), thousands(d.Input), thousands(d.Output), thousands(d.CacheRead), thousands(d.CacheWrite),
			thousands(d.Reasoning), thousands(d.Total), costCell(d)}
	}
	for _, row := range r.Rows {
		rows = append(rows, line(row.Key, row.UsageDoc))
	}
	rows = append(rows, line("TOTAL", r.Total))
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for _, row := range rows {
		for i, c := range row {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			switch {
			case i == 0:
				b.WriteString(c + pad)
			default:
				b.WriteString("  " + pad + c)
			}
		}
		b.WriteByte('\n')
	}
	var unpriced []string
	for _, model := range slices.Sorted(maps.Keys(r.Total.ByModel)) {
		if r.Total.ByModel[model].CostUSD == nil {
			unpriced = append(unpriced, model)
		}
	}
	if len(unpriced) > 0 {
		fmt.Fprintf(&b, "No price for %s: tokens counted, cost left out.\n", strings.Join(unpriced, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// costCell is a row's cost: in dollars to the cent; '-' when none of its
// models has a price; marked '*' when some have none.
func costCell(d backing.UsageDoc) string {
	if d.CostUSD != nil {
		return fmt.Sprintf("$%.2f", *d.CostUSD)
	}
	var usd float64
	priced := false
	for _, m := range d.ByModel {
		if m.CostUSD != nil {
			usd += *m.CostUSD
			priced = true
		}
	}
	if !priced {
		return "-"
	}
	return fmt.Sprintf("$%.2f*", usd)
}

// thousands writes n with its thousands separated by commas.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
