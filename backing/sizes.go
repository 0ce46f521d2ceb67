package backing

// SizeKeeper is a session of an engine that keeps, beside each branch's
// log, the size of each of the branch's own messages' pieces in a
// rendering (fsnode's piece rule: a transcript is one piece a message),
// so that a fresh mount knows a long transcript's size, and where each
// message's piece starts in it, without rendering the branch. The engine
// keeps the numbers; the caller computes them, and names what it computed
// them with in a stamp (the rendering's version, what the branch
// inherits).
//
// The sizes are derived, never the truth: they can be deleted at any
// time, and the engine forgets them when they are stale: kept under
// another stamp, or the log changed under them (rewritten, or cut back
// past them). A missing or stale size never fails a read; the caller
// renders what it lacks. An engine without it (backing/pgstore,
// backing/memstore) has its callers render every message once per
// process.
type SizeKeeper interface {
	// KeptSizes returns the sizes kept for branch branchID's first own
	// messages (its own log's, not its ancestors') in format, under
	// stamp: sizes[i] is own message i's; nil when none are kept or they
	// are stale.
	KeptSizes(branchID, format, stamp string) ([]uint32, error)
	// KeepSizes keeps sizes as those of the branch's first len(sizes)
	// own messages in format, under stamp. kept is how many of them the
	// caller was given by KeptSizes: the engine may add only the rest.
	KeepSizes(branchID, format, stamp string, sizes []uint32, kept int) error
}
