package backing

import (
	"fmt"
	"time"
)

// SessionInfo is one row of a session listing.
type SessionInfo struct {
	Meta
	Messages     int       // on the default branch, ancestry resolved, events not counted
	LastActivity time.Time // last append to any branch, or creation
	Err          error     // a session that could not be read is listed with its error
}

// Space is what holds a store's data, in the terms of statfs(2): blocks of
// BlockSize bytes and files in all, free, and free to an unprivileged user.
type Space struct {
	BlockSize                       uint32
	Blocks, BlocksFree, BlocksAvail uint64
	Files, FilesFree                uint64
}

// BadBranch is a branch file the session cannot use: unreadable, not a
// branch (a bad id, name, parent or fork point), or one that breaks a rule
// of the set (a second default branch, a second branch of a name). Damage
// stays with it: the other branches list and read as before, its
// descendants fail with its error, fsck reports it, and its log is never
// taken for one of no branch.
type BadBranch struct {
	ID   string // from the file's name
	Name string // what the file says, when it could be read
	Err  error  // what is wrong with the file; it does not name the file
}

// BadLine is a complete line of a log that is not a valid message. It is
// skipped by readers, reported by fsck and kept in the log.
type BadLine struct {
	Offset int64 // where the line starts in the branch's own log
	Line   int   // 1-based line number in the branch's own log
	Err    error
}

// ViewProblem is a line of a log a view reads that is not a message:
// skipped by every read, kept in the log, reported here and by fsck.
type ViewProblem struct {
	Branch string // id of the branch whose own messages hold the line
	BadLine
}

// MessageError says which message of an append was refused; nothing of that
// append was stored.
type MessageError struct {
	N   int // 0-based position in the append
	Err error
}

func (e *MessageError) Error() string { return fmt.Sprintf("message %d: %v", e.N+1, e.Err) }
func (e *MessageError) Unwrap() error { return e.Err }
