package backing

import (
	"errors"
	"fmt"
)

// Errors callers branch on. Every error the store returns for a reason a
// user can act on wraps one of these; fsnode maps them to errno and cmd to
// messages, each in one place.
var (
	ErrNotFound = errors.New("not found")
	ErrExist    = errors.New("already exists")
	ErrInvalid  = errors.New("invalid")
	ErrBadName  = errors.New("invalid name")
	ErrTooLarge = errors.New("message too large")
	ErrBusy     = errors.New("the default branch cannot be removed")
	ErrNotEmpty = errors.New("branch has child branches")
	ErrFormat   = errors.New("unsupported store format")
	// ErrTrashed refuses a change to a session in the trash: it is kept
	// as it was, read-only, until it is restored.
	ErrTrashed = errors.New("session is in the trash (restore it first)")
	// ErrDamaged is damage in the store that a person must look at
	// (sessfs fsck): the engine refuses it rather than guess.
	ErrDamaged = errors.New("the store is damaged here (see sessfs fsck)")
	// ErrUnavailable is a store that cannot be reached (a database down
	// or its connection cut): nothing was done, or, for a change whose
	// answer was lost, perhaps it was. It hides the cause's system error,
	// which says nothing of the session asked for (a socket's ENOENT
	// is not "no such session").
	ErrUnavailable = errors.New("the store cannot be reached")
)

// sentence is an error that reads as a plain sentence but still matches its
// sentinel with errors.Is, for messages where ": not found" would repeat
// what the sentence says.
type sentence struct {
	msg  string
	kind error
}

func (e *sentence) Error() string { return e.msg }
func (e *sentence) Unwrap() error { return e.kind }

// Sentencef is an error that reads as the sentence format makes and
// matches kind with errors.Is.
func Sentencef(kind error, format string, args ...any) error {
	return &sentence{msg: fmt.Sprintf(format, args...), kind: kind}
}
