package backing

import (
	"encoding/json"
	"time"
)

// Store is a store of sessions as an engine keeps it: the namespace of
// session names, and the sessions behind it. fsnode and cmd reach every
// engine through these three interfaces and nothing else; an engine's
// own package (backing/filestore, …) is named in one place, where cmd
// opens the store. Names are looked up once, at the edge: everything a
// session does to a branch takes the branch's id.
//
// Errors wrap the sentinels of errors.go (ErrNotFound, ErrExist, …) when
// a user can act on them; anything else is a failure of the engine.
type Store interface {
	// Location names the store as a user would: a folder, a URL.
	Location() string
	// MaxMessage is the largest message an append accepts, in bytes.
	MaxMessage() int64
	// Space is the room left for the store's data.
	Space() (Space, error)

	// Names lists the active sessions' names, sorted, and nothing else:
	// what a directory listing of the mount needs.
	Names() ([]string, error)
	// ArchivedNames lists the archived sessions' names, sorted.
	ArchivedNames() ([]string, error)
	// TrashedIDs lists the ids of the sessions in the trash.
	TrashedIDs() ([]string, error)
	// NamesChanged is when a name last came or went (create, rename,
	// archive, trash, restore); the zero time if unknown.
	NamesChanged() time.Time
	// List reads every active session's meta and counts, with the
	// archived and trashed ones too when all is set. A session that
	// cannot be read is listed with its error.
	List(all bool) ([]SessionInfo, error)

	// Session opens an active or archived session by name.
	Session(name string) (Session, error)
	// Lookup is Session that also says the session's state (StateActive
	// or StateArchived).
	Lookup(name string) (Session, string, error)
	// SessionByID opens a session by id, in the trash too.
	SessionByID(id string) (Session, error)

	// Create makes a session named name ("" for a generated name) with
	// m's title and other fields, and its default branch. The name must
	// be free (ErrExist) and valid (ErrBadName).
	Create(name string, m Meta) (Session, Meta, error)
	// Rename gives an active session a new name, never one in use.
	Rename(old, name string) error
	// Archive and Unarchive move an active session to the archive and back.
	Archive(name string) error
	Unarchive(name string) error
	// Trash moves an active or archived session to the trash, read-only.
	Trash(name string) error
	// Restore brings a session back from the trash by id or former name,
	// as as or, when as is "", its former name; it returns the name.
	Restore(nameOrID, as string) (string, error)

	// Subscribe calls fn with every change to the store (change.go) until
	// the subscription is closed. A change this process makes reaches fn
	// before the call that made it returns, after the engine let go of
	// its locks; one made by another writer reaches it within a second,
	// from a goroutine of the engine's. fn must not block for long and
	// must not call into a FUSE mount of this store.
	Subscribe(fn func(Change)) Subscription
}

// Session is one session: its meta, its branches and their messages.
// A session in the trash refuses every change with ErrTrashed.
type Session interface {
	ID() string
	// Trashed reports whether the session is in the trash.
	Trashed() bool

	// Meta is the session's meta; MetaBytes is meta.json as stored, to
	// show a document the store cannot read so that a person can mend it.
	Meta() (Meta, error)
	MetaBytes() ([]byte, error)
	// MetaModTime is when the meta last changed.
	MetaModTime() (time.Time, error)
	// CheckMeta is EditMeta's check of a document (CheckMetaDoc) alone.
	CheckMeta(doc []byte) (Meta, error)
	// EditMeta replaces the meta with a user's document, by the rule of
	// Edited; a meta the store cannot read is mended from doc whole.
	EditMeta(doc []byte) (Meta, error)
	// SetExtra sets one field of the meta beside the known ones.
	SetExtra(key string, v json.RawMessage) error
	// SetParent names the session this one was forked from.
	SetParent(id string) error
	// LastAppend is the time of the last append to any branch, or of
	// creation.
	LastAppend() (time.Time, error)

	// Branches lists the usable branches, the default one first, then
	// by name (SortBranches);
	// BadBranches the ones it leaves out, and why.
	Branches() ([]Branch, error)
	BadBranches() ([]BadBranch, error)
	// Branch finds a branch by name ("" is the default branch): the one
	// lookup of a name; everything after it takes the id.
	Branch(name string) (Branch, error)
	// BranchByID finds a branch by id ("" is the default branch).
	BranchByID(id string) (Branch, error)
	// Fork makes branch name from branch fromID, keeping its first at
	// messages (Head: all of them, as of the fork), at O(1) cost.
	Fork(fromID string, at int, name string) (Branch, error)
	// RenameBranch renames a branch, never over another branch's name.
	RenameBranch(id, name string) error
	// DeleteBranch removes a branch, keeping its messages in the
	// session's trash: ErrBusy for the default branch, ErrNotEmpty for
	// a branch with children.
	DeleteBranch(id string) error

	// AppendID adds messages to a branch, all or none, in order, never
	// interleaved with another append (MessageError says which message
	// was refused). When it returns nil they are durable. A message
	// whose own "id" the branch already has is acknowledged and not
	// stored again.
	AppendID(branchID string, msgs [][]byte) error
	// Backdate sets a branch's last activity to t, for an import.
	Backdate(branchID string, t time.Time) error
	// ViewID is the branch as of now: a View.
	ViewID(branchID string) (View, error)
}

// View is a branch as of one moment, its ancestry resolved: a fixed
// number of messages, read at any offset. A new View sees later appends.
type View interface {
	// Branch is the branch the view shows.
	Branch() Branch
	// Len is the number of messages, events included.
	Len() int
	// Inherited is how many of them come from the branch's ancestors.
	Inherited() int
	// Read returns messages [from, to), each with its turn.
	Read(from, to int) ([]Message, error)
	// RawLen is the stored length of message i, known without reading it.
	RawLen(i int) int
	// ModTime is when the branch's own messages last changed.
	ModTime() time.Time

	// Events is how many messages are events (EventRole); Visible is
	// how many are not, the count a person reads and types.
	Events() int
	Visible() int
	// Typed is where the typed events are (Kind.Typed), ascending;
	// EventsAt where all the events are.
	Typed() []int
	EventsAt() []int
	// TypedBefore counts the typed events in [0, i); TypedAt is the
	// position of the j-th (0-based), -1 past the last.
	TypedBefore(i int) int
	TypedAt(j int) int
	// VisibleBefore counts the visible messages in [0, i).
	VisibleBefore(i int) int
	// AfterVisible is the position just past the k-th visible message.
	AfterVisible(k int) (int, error)

	// Turns is the number of turns (see turns.go); TurnRange is turn
	// k's messages [from, to), k 1-based; TurnOf is message i's turn.
	Turns() int
	TurnRange(k int) (from, to int, err error)
	TurnOf(i int) int

	// Problems lists the stored lines the view skipped, not being
	// messages.
	Problems() []ViewProblem
}

// Receiver is an engine that takes in a session of another store under
// the id it has there (sessfs copy): one session in two stores, which a
// copy made again finds, and which other sessions' Meta.Parent still
// names.
type Receiver interface {
	// Receive creates an active session with m's id, name and other
	// fields, its dates as given (ReceivedMeta), and an empty default
	// branch. ErrExist when the name is taken or a session of that id is
	// in the store, in the trash too.
	Receive(m Meta) (Session, Meta, error)
}

// Checker is an engine that can check its store whole and repair what it
// can without losing a byte (sessfs fsck).
type Checker interface {
	Fsck(repair bool) (FsckReport, error)
}

// Sweeper is an engine that applies a lifecycle policy (sessfs sweep).
type Sweeper interface {
	// SweepConfig is the policy the store keeps; PolicyLocation says
	// where a user sets it.
	SweepConfig() (SweepConfig, error)
	PolicyLocation() string
	// Sweep archives sessions idle for ArchiveAfter and deletes for good
	// those in the trash for PurgeAfter, as of t.
	Sweep(cfg SweepConfig, t time.Time, dryRun bool) (SweepReport, error)
}

// Remover is an engine that deletes a session for good, at once, with no
// trash to restore it from: a store in memory (backing/memstore), whose
// sessions a mount's tmp/ shows, drops one moved into the real store or
// removed with rmdir.
type Remover interface {
	// Remove deletes session id, wherever it is (ErrNotFound if none).
	Remove(id string) error
}
