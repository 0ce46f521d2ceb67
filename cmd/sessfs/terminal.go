package main

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// terminal reports whether f is a terminal, not a pipe or a file: where
// progress is shown.
func terminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// colorful reports whether f is a terminal that may be given colours: the
// user has not asked for none (NO_COLOR, TERM=dumb).
func colorful(f *os.File) bool {
	return terminal(f) && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
}

// progress shows "importing 12/300 name" on a terminal, on one line of
// standard error that the next output overwrites; elsewhere, or for a
// single item, it is silent.
type progress struct {
	verb string // what is done to each item: "importing"
	on   *bool  // whether to show, decided at the first item
}

// show says item i (0-based) of total is under way; path names it, or is
// "".
func (p *progress) show(i, total int, path string) {
	if p.on == nil {
		on := terminal(os.Stderr) && total > 1
		p.on = &on
	}
	if *p.on {
		name := ""
		if path != "" {
			name = " " + shorten(filepath.Base(path), 50)
		}
		fmt.Fprintf(os.Stderr, "\r%s %d/%d%s\x1b[K", p.verb, i+1, total, name)
	}
}

func (p *progress) clear() {
	if p.on != nil && *p.on {
		fmt.Fprint(os.Stderr, "\r\x1b[K")
	}
}
