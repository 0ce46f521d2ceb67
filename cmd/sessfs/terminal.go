package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// colorful reports whether f is a terminal that may be given colours: not
// a pipe or a file, and the user has not asked for none (NO_COLOR).
func colorful(f *os.File) bool {
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
