package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sessfs/sessfs/backing"
)

func runSweep(args []string) int {
	c := newCLI("sweep", "[--archive-after DUR] [--purge-after DUR] [--dry-run]",
		`Applies the lifecycle policy: archives active sessions idle longer than
--archive-after and deletes for good the sessions in the trash for longer
than --purge-after. Durations are like 30d, 12h or 90m; 0 turns a rule off.
With neither flag, the policy of the store's config.json is used
({"archive_after_days": N, "purge_after_days": N}); with either, only the
flags count. With --dry-run, prints what would be done and does nothing.`)
	archiveAfter := c.fs.String("archive-after", "0", "archive active sessions idle this long (`DUR`)")
	purgeAfter := c.fs.String("purge-after", "0", "purge sessions trashed this long ago (`DUR`)")
	dryRun := c.fs.Bool("dry-run", false, "print what would be done, change nothing")
	if _, code, ok := c.parse(args, 0, 0); !ok {
		return code
	}
	// Flags are checked before the store is opened: a typo changes nothing.
	var cfg backing.SweepConfig
	var err error
	fromFlags := c.fs.Changed("archive-after") || c.fs.Changed("purge-after")
	if fromFlags {
		if cfg.ArchiveAfter, err = parseAge(*archiveAfter); err != nil {
			return c.usageError("--archive-after: " + err.Error())
		}
		if cfg.PurgeAfter, err = parseAge(*purgeAfter); err != nil {
			return c.usageError("--purge-after: " + err.Error())
		}
	}
	st, err := c.open()
	if err != nil {
		return c.fail(err)
	}
	sw, ok := st.(backing.Sweeper)
	if !ok {
		return c.fail(fmt.Errorf("the store at %s has no lifecycle policy to apply", st.Location()))
	}
	if !fromFlags {
		if cfg, err = sw.SweepConfig(); err != nil {
			return c.fail(err)
		}
	}
	if cfg.ArchiveAfter == 0 && cfg.PurgeAfter == 0 {
		fmt.Printf("nothing to do: no policy (use --archive-after/--purge-after, or set it in %s)\n",
			sw.PolicyLocation())
		return exitOK
	}
	rep, err := sw.Sweep(cfg, time.Now(), *dryRun)
	// A sweep that failed halfway has still done what its report says.
	archived, purged := "archived", "purged"
	if *dryRun {
		archived, purged = "would archive", "would purge"
	}
	for _, name := range rep.Archived {
		fmt.Printf("%s %s\n", archived, name)
	}
	for _, id := range rep.Purged {
		fmt.Printf("%s %s\n", purged, id)
	}
	if err != nil {
		return c.fail(err)
	}
	if len(rep.Archived) == 0 && len(rep.Purged) == 0 {
		fmt.Println("nothing to sweep")
	}
	return exitOK
}

// maxDays keeps a count of days within time.Duration (about 292 years).
const maxDays = 100 * 365

// parseAge reads a duration the way people give ages: Nd for days (which
// time.ParseDuration lacks), anything time.ParseDuration takes, or 0 for off.
func parseAge(s string) (time.Duration, error) {
	bad := fmt.Errorf("invalid duration %q: use e.g. 30d, 12h, 90m, or 0 for off", s)
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 || n > maxDays {
			return 0, bad
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, bad
	}
	return d, nil
}
