package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/fsnode"
)

// hitJSON is one line of `sessfs search --json`; its keys are part of the
// command's interface (README, "Finding sessions").
type hitJSON struct {
	Session   string    `json:"session"`
	SessionID string    `json:"session_id"`
	State     string    `json:"state"`
	Branch    string    `json:"branch,omitempty"`
	Turn      int       `json:"turn"`
	Message   int       `json:"message"`
	Role      string    `json:"role,omitempty"`
	Time      time.Time `json:"time,omitzero"`
	Snippet   string    `json:"snippet"`
	Marks     [][2]int  `json:"marks"`
	Score     float64   `json:"score"`
	Path      string    `json:"path"`
}

func runSearch(args []string) int {
	c := newCLI("search", "[flags] QUERY…",
		`Finds the messages that match QUERY, best first (ties newest first), in the
default branch of every active session. Each hit names the session, the
branch when not the default one, the turn, the role and the time, with the
text around the match (marked; highlighted on a terminal).

QUERY: words (all must match, in any order), "exact phrases" (quote them for
the shell too: '"group commit"'), prefix* and NOT word (or -word); OR between
two terms. Case, accents and punctuation do not matter. Titles and tags are
searched too: such a hit names the session alone.

The index behind it is built from the store on first use and kept up to date
by every writer; 'sessfs index --rebuild' builds it again.`)
	project := c.fs.String("project", "", "only sessions of project `P` (as sessfs ls shows it)")
	agent := c.fs.String("agent", "", "only sessions written by agent `A` (claude-code, codex, gemini, sessfs)")
	since := c.fs.String("since", "", "only messages at or after `D` (2026-11-24, 2026-11-24T15:04, 7d, 36h)")
	until := c.fs.String("until", "", "only messages before `D`; a day given is included")
	role := c.fs.String("role", "", "only messages of role `R` (user, assistant, tool, …)")
	branch := c.fs.String("branch", "", "'all' to search every branch, not only the default one")
	archived := c.fs.Bool("archived", false, "search archived sessions too")
	limit := c.fs.IntP("limit", "n", 20, "show at most `N` hits (0: all)")
	asJSON := c.fs.Bool("json", false, "print one JSON object a line (see the README)")
	rest, code, ok := c.parse(args, 1, -1)
	if !ok {
		return code
	}
	q := backing.Query{Text: strings.Join(rest, " "), Project: *project, Agent: *agent, Role: *role,
		Archived: *archived, Limit: *limit}
	switch *branch {
	case "":
	case "all":
		q.AllBranches = true
	default:
		return c.usageError(fmt.Sprintf("--branch takes 'all', not %q", *branch))
	}
	if *limit < 0 {
		return c.usageError("-n takes a count, 0 for all")
	}
	now := time.Now()
	var err error
	if q.Since, err = parseWhen(*since, now, false); err != nil {
		return c.usageError("--since: " + err.Error())
	}
	if q.Until, err = parseWhen(*until, now, true); err != nil {
		return c.usageError("--until: " + err.Error())
	}
	if _, err := backing.ParseQuery(q.Text); err != nil {
		return c.usageError(errorMessage(err))
	}
	f, err := c.finder()
	if err != nil {
		return c.fail(err)
	}
	hits, err := f.Search(q)
	if err != nil {
		return c.fail(err)
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		for _, h := range hits {
			if err := enc.Encode(toHitJSON(h)); err != nil {
				return c.fail(err)
			}
		}
		return exitOK
	}
	if err := printHits(os.Stdout, hits, colorful(os.Stdout)); err != nil {
		return c.fail(err)
	}
	if len(hits) == 0 {
		return exitFail // as grep: nothing found is a failure a script can test
	}
	return exitOK
}

func toHitJSON(h backing.Hit) hitJSON {
	out := hitJSON{Session: h.Name, SessionID: h.Session, State: h.State, Turn: h.Turn, Message: h.Message,
		Role: h.Role, Time: h.Time, Snippet: h.Snippet, Marks: h.Marks, Score: h.Score, Path: fsnode.HitPath(h)}
	if !h.Default {
		out.Branch = h.BranchName
	}
	if out.Marks == nil {
		out.Marks = [][2]int{}
	}
	return out
}

// printHits writes hits for a person: a line saying where each is, then
// its snippet indented, the matches in bold reverse video on a terminal
// and between « » elsewhere.
func printHits(w io.Writer, hits []backing.Hit, color bool) error {
	open, close := "«", "»"
	if color {
		open, close = "\x1b[1;7m", "\x1b[0m"
	}
	for _, h := range hits {
		where := fsnode.HitPlace(h)
		if h.State == backing.StateArchived {
			where[0] += " (archived)"
		}
		if h.Role != "" {
			where = append(where, h.Role)
		}
		if !h.Time.IsZero() {
			where = append(where, localTime(h.Time))
		}
		var b strings.Builder
		at := 0
		for _, m := range h.Marks {
			b.WriteString(cell(h.Snippet[at:m[0]]))
			b.WriteString(open + cell(h.Snippet[m[0]:m[1]]) + close)
			at = m[1]
		}
		b.WriteString(cell(h.Snippet[at:]))
		if _, err := fmt.Fprintf(w, "%s\n    %s\n", cell(strings.Join(where, " · ")), b.String()); err != nil {
			return err
		}
	}
	return nil
}
