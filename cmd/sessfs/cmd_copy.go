package main

import (
	"fmt"
	"strings"

	"github.com/sessfs/sessfs/backing"
)

func runCopy(args []string) int {
	c := newCLI("copy", "[--from STORE] --to STORE [SESSION...]",
		`Copies sessions from one store to another, between any two engines: a
folder to a PostgreSQL database to move a person's sessions to a team's,
and back. Each session keeps its id, name, meta, every branch and every
message's stored bytes, so that it reads the same in both stores: its
transcripts, messages.jsonl and export --format original are byte for byte
what they were. With no SESSION, every active and archived session is
copied (the trash is not); a SESSION is a name, an id or a unique prefix of
either in the source.

A session the destination has already (the same id) is brought up to date:
the messages and branches it lacks are added, and nothing it has is
changed, its meta included. A branch that has grown apart in the two
stores is left as it is and reported. A copy cut short is completed by
running it again.

A session whose name the destination gives to another session is not
copied; rename one of the two and copy again. Each session copied prints a
line; the exit status is 1 if any was not.`)
	from := c.fs.String("from", "", "the store to copy from: a `STORE` as --store names one (default: --store, else the default store)")
	to := c.fs.String("to", "", "the store to copy to: a `STORE` as --store names one (required)")
	rest, code, ok := c.parse(args, 0, -1)
	if !ok {
		return code
	}
	if *to == "" {
		return c.usageError("--to is required: the store to copy to")
	}
	if *from != "" {
		c.store = *from
	}
	src, err := c.open()
	if err != nil {
		return c.fail(err)
	}
	if dstLoc, err := absStore(*to); err == nil && dstLoc == src.Location() {
		return c.usageError("--from and --to are the same store")
	}
	dst, err := openStore(*to, true, false)
	if err != nil {
		return c.fail(err)
	}
	names, err := copyNames(src, rest)
	if err != nil {
		return c.fail(err)
	}
	failed := 0
	for _, name := range names {
		s, err := src.Session(name)
		if err == nil {
			var done backing.Copied
			if done, err = backing.Copy(dst, s); err == nil {
				fmt.Println(copiedLine(name, done))
				continue
			}
		}
		failed++
		c.warn(fmt.Errorf("%s: %w", name, err))
	}
	if failed > 0 {
		c.warn(fmt.Errorf("%s of %d not copied", plural(failed, "session"), len(names)))
		return exitFail
	}
	return exitOK
}

// copyNames is the sessions copy copies: those the arguments name, each
// once, or every active and archived session of src.
func copyNames(src backing.Store, args []string) ([]string, error) {
	if len(args) == 0 {
		active, err := src.Names()
		if err != nil {
			return nil, err
		}
		archived, err := src.ArchivedNames()
		return append(active, archived...), err
	}
	var names []string
	seen := map[string]bool{}
	for _, arg := range args {
		name, err := resolve(src, arg)
		if err != nil {
			return nil, err
		}
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	return names, nil
}

// copiedLine says in one line what the copy of a session did.
func copiedLine(name string, c backing.Copied) string {
	var what []string
	if c.Messages > 0 || c.New {
		what = append(what, plural(c.Messages, "message"))
	}
	switch {
	case c.Branches == 1:
		what = append(what, "1 branch")
	case c.Branches > 1:
		what = append(what, fmt.Sprintf("%d branches", c.Branches))
	}
	switch {
	case c.New:
		return fmt.Sprintf("copied %s (%s)", name, strings.Join(what, ", "))
	case len(what) > 0:
		return fmt.Sprintf("updated %s (%s added)", name, strings.Join(what, ", "))
	default:
		return fmt.Sprintf("%s is up to date", name)
	}
}
