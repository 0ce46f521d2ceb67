package backing

import "time"

// Problem is one thing fsck found wrong in the store, or, when Note is
// set, a leftover that is normal after a crash.
type Problem struct {
	Session  string // session id, when the problem is inside one
	Path     string // the file or folder concerned, relative to the store
	What     string // what is wrong, for a human
	Fixable  bool   // --repair fixes it without losing a byte
	Repaired bool   // fixed by this run
	Err      error  // the repair was tried and failed
	// Note marks what a crash of sessfs normally leaves (a torn last line,
	// the temporary file of an atomic replace, a half-made session or
	// branch that was never acknowledged): readers ignore it and the next
	// writer, or --repair, tidies it. It is reported, and is no damage.
	Note bool
}

// FsckReport is what a check of the whole store found.
type FsckReport struct {
	Sessions int
	Problems []Problem
}

// Remaining counts the problems still there after the run, notes aside.
func (r FsckReport) Remaining() int {
	n := 0
	for _, p := range r.Problems {
		if !p.Repaired && !p.Note {
			n++
		}
	}
	return n
}

// SweepConfig is the lifecycle policy; a zero duration turns a rule off,
// and both are off unless the user sets them.
type SweepConfig struct {
	ArchiveAfter time.Duration // archive active sessions idle this long
	PurgeAfter   time.Duration // delete trashed sessions this long in the trash
}

// SweepReport lists what a sweep did (or would do, on a dry run).
type SweepReport struct {
	Archived []string // names
	Purged   []string // ids
}
