package main

import (
	"fmt"

	"github.com/sessfs/sessfs/backing/pgstore"
)

// runDB dispatches `sessfs db migrate`: the PostgreSQL engine's schema.
func runDB(args []string) int {
	c := newCLI("db", "migrate [--store URL]",
		`Works on a PostgreSQL store (--store postgres://…, or $SESSFS_STORE):
  migrate   creates the schema sessfs keeps there, or upgrades it to this
            sessfs's version, and prints the version it is at. Every
            command does this on first use; run it to upgrade a shared
            database at a time of your choosing, before the mounts.`)
	c.fs.SetInterspersed(true)
	rest, code, ok := c.parse(args, 1, 1)
	if !ok {
		return code
	}
	if rest[0] != "migrate" {
		return c.usageError(fmt.Sprintf("unknown subcommand %q: migrate", rest[0]))
	}
	store := c.store
	if store == "" {
		var err error
		if store, err = defaultStore(); err != nil {
			return c.fail(err)
		}
	}
	if !isDatabase(store) {
		return c.fail(fmt.Errorf("the store %s is a folder, not a PostgreSQL database (postgres://…): the file engine needs no migration here", store))
	}
	v, err := pgstore.MigrateURL(store, pgstore.DefaultTimeout)
	if err != nil {
		return c.fail(err)
	}
	fmt.Printf("schema version %d\n", v)
	return exitOK
}
