package main

import (
	"fmt"

	"github.com/sessfs/sessfs/backing"
)

// problemJSON is one problem of `sessfs fsck --json`.
type problemJSON struct {
	Session  string `json:"session,omitempty"`
	Path     string `json:"path"`
	What     string `json:"what"`
	Fixable  bool   `json:"fixable"`
	Repaired bool   `json:"repaired"`
	Error    string `json:"error,omitempty"` // why a repair failed
}

type fsckJSON struct {
	Sessions int           `json:"sessions"`
	Problems []problemJSON `json:"problems"`
	OK       bool          `json:"ok"` // no problem remains
}

func runFsck(args []string) int {
	c := newCLI("fsck", "[--repair] [--json]",
		`Checks every session of the store and prints each problem found, then a
summary. With --repair, fixes what can be fixed without losing a byte (cut
bytes are kept in the session's quarantine folder). Exits 0 when no problem
remains.`)
	repair := c.fs.Bool("repair", false, "fix what can be fixed safely")
	asJSON := c.fs.Bool("json", false, "print one JSON object")
	if _, code, ok := c.parse(args, 0, 0); !ok {
		return code
	}
	st, err := c.open()
	if err != nil {
		return c.fail(err)
	}
	rep, err := st.Fsck(*repair)
	if err != nil {
		return c.fail(err)
	}
	var repaired, fixable, human int
	for _, p := range rep.Problems {
		switch {
		case p.Repaired:
			repaired++
		case p.Fixable:
			fixable++
		default:
			human++
		}
	}
	remaining := fixable + human

	if *asJSON {
		out := fsckJSON{Sessions: rep.Sessions, Problems: []problemJSON{}, OK: remaining == 0}
		for _, p := range rep.Problems {
			pj := problemJSON{Session: p.Session, Path: p.Path, What: p.What, Fixable: p.Fixable, Repaired: p.Repaired}
			if p.Err != nil {
				pj.Error = errorMessage(p.Err)
			}
			out.Problems = append(out.Problems, pj)
		}
		if err := printJSON(out); err != nil {
			return c.fail(err)
		}
	} else {
		for _, p := range rep.Problems {
			fmt.Println(problemLine(p))
		}
		fmt.Println(fsckSummary(rep.Sessions, len(rep.Problems), repaired, fixable, human))
	}
	if remaining > 0 {
		return exitFail
	}
	return exitOK
}

// problemLine is "SESSION PATH: WHAT [status]"; store-wide problems have no
// session.
func problemLine(p backing.Problem) string {
	status := "needs a human"
	switch {
	case p.Repaired:
		status = "repaired"
	case p.Err != nil:
		status = "repair failed: " + errorMessage(p.Err)
	case p.Fixable:
		status = "fixable with --repair"
	}
	where := p.Path
	if p.Session != "" {
		where = p.Session + " " + p.Path
	}
	return fmt.Sprintf("%s: %s [%s]", where, p.What, status)
}

func fsckSummary(sessions, problems, repaired, fixable, human int) string {
	s := "checked " + plural(sessions, "session") + ": "
	if problems == 0 {
		return s + "no problems"
	}
	s += plural(problems, "problem")
	if repaired > 0 {
		s += fmt.Sprintf(", %d repaired", repaired)
	}
	if fixable > 0 {
		s += fmt.Sprintf(", %d fixable with --repair", fixable)
	}
	if human > 0 {
		s += fmt.Sprintf(", %d need a human", human)
	}
	return s
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
