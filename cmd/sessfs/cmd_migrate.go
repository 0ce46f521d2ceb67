package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

func runMigrate(args []string) int {
	c := newCLI("migrate", "[--abort]", fmt.Sprintf(`Upgrades a store written by an earlier sessfs to the format this one uses
(%d), in place. Each session is written anew beside itself and swapped in;
the old copies are kept until every session is done, so a migration cut
short (a crash, Ctrl-C, a full disk) is finished by running migrate again,
or undone with --abort, which puts the old store back as it was. The
store cannot be used meanwhile: unmount it and stop sessfs sync first
(migrate refuses while it is mounted). It needs about the store's size
free on its disk. A store already of this format is left as it is.
Format 2 stores an imported line's content once (format 1 kept it twice).
Format 3 may keep the start of a long log compressed (sealed); a store of
format 2 is read as it is, and says 3 from its first seal on.
Once the sessions are rewritten, migrate keeps their transcripts' sizes,
as an import does, so that a mount's first stat of a long session is
quick (Ctrl-C skips this: a mount works a size out when first asked).
A PostgreSQL store upgrades its schema with 'sessfs db migrate'.`, storeFormat))
	abort := c.fs.Bool("abort", false, "undo a migration that was cut short: the store goes back to its old format as it was")
	if _, code, ok := c.parse(args, 0, 0); !ok {
		return code
	}
	root, err := c.storeRoot()
	if err != nil {
		return c.fail(err)
	}
	if isDatabase(root) {
		return c.fail(fmt.Errorf("%s is a PostgreSQL store: its schema upgrades with 'sessfs db migrate'", root))
	}
	if _, err := os.Stat(filepath.Join(root, "FORMAT")); errors.Is(err, os.ErrNotExist) {
		return c.fail(fmt.Errorf("there is no store at %s to migrate", root))
	}
	real, err := realPath(root)
	if err != nil {
		return c.fail(err)
	}
	if m, ok := storeMount(real); ok {
		return c.fail(fmt.Errorf("the store is mounted at %s: unmount it first (sessfs umount %s)", m.Dir, shellQuote(m.Dir)))
	}
	if *abort {
		if err := abortMigration(real); err != nil {
			return c.fail(err)
		}
		fmt.Printf("store %s is back to its format before the migration\n", real)
		return exitOK
	}
	p := &progress{verb: "migrating: session"}
	res, err := migrateStore(real, func(done, total int) { p.show(done-1, total, "") })
	p.clear()
	if err != nil {
		return c.fail(err)
	}
	switch {
	case res.Current && res.From == storeFormat:
		fmt.Printf("store %s is of format %d already: nothing to do\n", real, storeFormat)
		return exitOK
	case res.Current:
		fmt.Printf("store %s is of format %d, which this sessfs reads as it is (it says %d from its first sealed log): nothing to do\n",
			real, res.From, storeFormat)
		return exitOK
	}
	fmt.Printf("store %s migrated from format %d to %d: %s rewritten, their logs %s → %s\n",
		real, res.From, storeFormat, plural(res.Sessions, "session"), humanBytes(res.Before), humanBytes(res.After))
	keepStoreSizes(c)
	return exitOK
}

// keepStoreSizes keeps the transcripts' sizes of every active and
// archived session, as an import does for what it stores: the rewritten
// logs have none, and a mount's first stat of a long session would
// otherwise render all of it. The sizes are derived, so a failure only
// warns: a mount works them out when first asked.
func keepStoreSizes(c *cli) {
	st, err := c.open()
	if err != nil {
		c.warn(fmt.Errorf("keeping the transcripts' sizes: %w", err))
		return
	}
	var names []string
	for _, list := range []func() ([]string, error){st.Names, st.ArchivedNames} {
		got, err := list()
		if err != nil {
			c.warn(fmt.Errorf("keeping the transcripts' sizes: %w", err))
			return
		}
		names = append(names, got...)
	}
	p := &progress{verb: "keeping the transcripts' sizes: session"}
	k := startKeepingSizes(st, c.warn)
	k.onKept = func(kept int) { p.show(kept-1, len(names), "") }
	for _, name := range names {
		k.add(name)
	}
	k.wait()
	p.clear()
}

// humanBytes is n bytes in kB, MB or GB (decimal, as du -h --si), for a
// line a person reads.
func humanBytes(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d bytes", n)
}
