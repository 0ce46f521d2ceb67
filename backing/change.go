package backing

// The change feed, in the spirit of rclone's ChangeNotifier: a subscriber
// hears of every change to a store, by any writer (this process, the
// command line, another mount, another machine), with what changed. The
// mount invalidates what the kernel caches from it and from nothing else.

// ChangeKind says what a Change changed.
type ChangeKind uint8

const (
	// Appended: messages were added to branch Branch of session Session
	// (or its last activity moved, Backdate); Len is the branch's length
	// after it, as a View counts, or -1 if the engine does not know.
	Appended ChangeKind = iota + 1
	// BranchesChanged: branch Branch of session Session was made by a
	// fork, renamed or deleted ("" when the engine cannot say which).
	BranchesChanged
	// MetaChanged: session Session's meta changed (an edit, a title).
	MetaChanged
	// NamesChanged: a session was created, renamed, archived, unarchived,
	// trashed, restored or deleted for good. Session is its id, "" when
	// the engine cannot say which.
	NamesChanged
)

func (k ChangeKind) String() string {
	switch k {
	case Appended:
		return "appended"
	case BranchesChanged:
		return "branches changed"
	case MetaChanged:
		return "meta changed"
	case NamesChanged:
		return "names changed"
	}
	return "unknown change"
}

// Change is one change to a store. A subscriber must take every Change as
// a hint to look again, not as the state itself: changes may come twice,
// and several may come as one.
type Change struct {
	Kind    ChangeKind
	Session string // session id
	Branch  string // branch id, for Appended and BranchesChanged
	Len     int    // for Appended; -1 if unknown
}

// Subscription is a subscriber's hold on the change feed (Store.Subscribe).
// Its methods never call the subscriber's function, so they may be called
// while holding a lock that function takes.
type Subscription interface {
	// Follow asks for the changes inside session id that other writers
	// make (appends, branches, meta) until as many Unfollow calls; the
	// names' changes and this process's own are reported for every
	// session regardless.
	Follow(id string)
	Unfollow(id string)
	// Close ends the subscription: no call of its function starts after
	// Close returns, but one under way may finish.
	Close()
}
