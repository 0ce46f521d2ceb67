package main

import (
	"fmt"

	"github.com/sessfs/sessfs/backing"
)

func runMerge(args []string) int {
	c := newCLI("merge", "[--strategy append|replace] SESSION FROM [INTO]",
		`Merges branch FROM of SESSION into branch INTO (default: the default branch).
The common ancestor is where the two histories part, found from the fork
points however deep the forks go.

append (the default) adds FROM's messages after the common ancestor to the
end of INTO, all of them or none. A message INTO already has (by its id) is
not stored again, so merging the same branch again adds only what FROM
gained since.

replace makes INTO's history after the common ancestor FROM's. Nothing is
deleted: INTO's previous history is kept as branch INTO-before-merge-N (the
first free N), with the branches forked from it, and INTO's name goes to a
new branch. The default branch is the root of the tree and cannot be cut:
a replace into it is refused while it has messages after the common
ancestor (append instead, or replace into another branch).

Counts are of visible messages, as sessfs branches counts them.`)
	strategy := c.fs.String("strategy", backing.MergeAppend, "how to merge: `append` (to the end of INTO) or replace (INTO's history after the common ancestor)")
	rest, code, ok := c.parse(args, 2, 3)
	if !ok {
		return code
	}
	if *strategy != backing.MergeAppend && *strategy != backing.MergeReplace {
		return c.usageError(fmt.Sprintf("--strategy %q: it is append or replace", *strategy))
	}
	s, err := c.session(rest[0])
	if err != nil {
		return c.fail(err)
	}
	// Names are looked up once, here; the merge goes by id.
	from, err := s.Branch(rest[1])
	if err != nil {
		return c.fail(err)
	}
	intoName := ""
	if len(rest) == 3 {
		intoName = rest[2]
	}
	into, err := s.Branch(intoName)
	if err != nil {
		return c.fail(err)
	}
	m, err := backing.Merge(s, from.ID, into.ID, *strategy)
	if err != nil {
		return c.fail(err)
	}
	// The branch now named INTO: a new one after a replace.
	now, err := s.Branch(into.Name)
	if err != nil {
		return c.fail(err)
	}
	v, err := s.ViewID(now.ID)
	if err != nil {
		return c.fail(err)
	}
	shared := v.VisibleBefore(min(m.Ancestor, v.Len()))
	added := v.Visible() - v.VisibleBefore(max(0, v.Len()-m.Added))
	fmt.Printf("merged %q into %q (%s): %s added; the branches shared their first %d\n",
		from.Name, into.Name, *strategy, plural(added, "message"), shared)
	if m.Kept != "" {
		fmt.Printf("the previous head of %q is branch %q\n", into.Name, m.Kept)
	}
	return exitOK
}
