package backing

import "errors"

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
	ErrReadOnly = errors.New("read-only")
)
