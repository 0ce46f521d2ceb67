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
	Note     bool   `json:"note"`            // a leftover of a crash, no damage
	Error    string `json:"error,omitempty"` // why a repair failed
}

type fsckJSON struct {
	Sessions int           `json:"sessions"`
	Problems []problemJSON `json:"problems"`
	OK       bool          `json:"ok"` // no problem remains (notes aside)
}

func runFsck(args []string) int {
	c := newCLI("fsck", "[--repair] [--json]",
		`Checks every session of the store and prints each problem found, then a
summary. With --repair, fixes what can be fixed without losing a byte (cut
bytes are kept in the session's quarantine folder). What a crash normally
leaves (a torn last line, a temporary file, a half-made session or branch,
never acknowledged) is listed as a leftover, not damage: readers ignore it
and --repair tidies it. Exits 0 when no problem remains, leftovers aside.`)
	repair := c.fs.Bool("repair", false, "fix what can be fixed safely")
	asJSON := c.fs.Bool("json", false, "print one JSON object")
	if _, code, ok := c.parse(args, 0, 0); !ok {
		return code
	}
	st, err := c.open()
	if err != nil {
		return c.fail(err)
	}
	ck, ok := st.(backing.Checker)
	if !ok {
		return c.fail(fmt.Errorf("the store at %s has no fsck", st.Location()))
	}
	rep, err := ck.Fsck(*repair)
	if err != nil {
		return c.fail(err)
	}
	var n fsckCounts
	for _, p := range rep.Problems {
		switch {
		case p.Note && p.Repaired:
			n.tidied++
		case p.Note:
			n.leftovers++
		case p.Repaired:
			n.repaired++
		case p.Fixable:
			n.fixable++
		default:
			n.human++
		}
	}
	remaining := n.fixable + n.human

	if *asJSON {
		out := fsckJSON{Sessions: rep.Sessions, Problems: []problemJSON{}, OK: remaining == 0}
		for _, p := range rep.Problems {
			pj := problemJSON{Session: p.Session, Path: p.Path, What: p.What, Fixable: p.Fixable, Repaired: p.Repaired, Note: p.Note}
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
		fmt.Println(fsckSummary(rep.Sessions, n))
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
	case p.Note:
		status = "left by a crash, no damage; --repair tidies it"
	case p.Fixable:
		status = "fixable with --repair"
	}
	where := p.Path
	if p.Session != "" {
		where = p.Session + " " + p.Path
	}
	return fmt.Sprintf("%s: %s [%s]", where, p.What, status)
}

// fsckCounts sorts what fsck found: problems by what became of them, and
// the leftovers of a crash (notes), which are no damage.
type fsckCounts struct {
	repaired, fixable, human int
	leftovers, tidied        int
}

func fsckSummary(sessions int, n fsckCounts) string {
	s := "checked " + plural(sessions, "session") + ": "
	if problems := n.repaired + n.fixable + n.human; problems == 0 {
		s += "no problems"
	} else {
		s += plural(problems, "problem")
		if n.repaired > 0 {
			s += fmt.Sprintf(", %d repaired", n.repaired)
		}
		if n.fixable > 0 {
			s += fmt.Sprintf(", %d fixable with --repair", n.fixable)
		}
		if n.human > 0 {
			s += fmt.Sprintf(", %d need a human", n.human)
		}
	}
	if n.tidied > 0 {
		s += "; " + plural(n.tidied, "leftover") + " of a crash tidied"
	}
	if n.leftovers > 0 {
		s += "; " + plural(n.leftovers, "leftover") + " of a crash (no damage; --repair tidies it)"
	}
	return s
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
