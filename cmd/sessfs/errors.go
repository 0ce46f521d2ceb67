package main

import (
	"errors"
	"os"

	"github.com/sessfs/sessfs/backing"
)

// errorMessage turns an error into the one line a user reads after
// "sessfs CMD: ". It is the only place that maps errors to words, so every
// command says the same thing for the same failure. The store's errors
// already name the session or branch and say what went wrong (`session "x":
// not found`); here we only add what a user should do next.
func errorMessage(err error) string {
	msg := err.Error()
	switch {
	case errors.Is(err, backing.ErrNotEmpty):
		return msg + " (remove those branches first)"
	case errors.Is(err, backing.ErrFormat):
		return msg
	case errors.Is(err, backing.ErrTooLarge):
		return msg + " (split it into several messages)"
	case errors.Is(err, os.ErrPermission):
		return msg + " (check the permissions of the store, or pass --store)"
	}
	return msg
}
