package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// A mount of an agent's own folder (mount --source) serves a store kept
// beside the user's, in the cache folder, that mirrors the folder: every
// session file is imported into it at mount time and again whenever it
// changes (importer.Syncer, as sessfs sync), so the same tree shows another agent's
// sessions read-only, and keeps up as the agent appends. The user's store
// is never touched.

// rescanEvery is how often a watch of agents' folders (sync --watch,
// mount --source) scans them whole, in case the kernel lost an event: a
// scan of unchanged files costs a stat each.
const rescanEvery = 5 * time.Minute

// sourceCache is the store that mirrors folder dir of format f.
func sourceCache(f, dir string) (string, error) {
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no cache folder: set XDG_CACHE_HOME or HOME (%w)", err)
		}
		base = filepath.Join(home, ".cache")
	}
	sum := sha256.Sum256([]byte(f + "\x00" + dir))
	return filepath.Join(base, "sessfs", "source-"+hex.EncodeToString(sum[:6])), nil
}
