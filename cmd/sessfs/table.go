package main

import (
	"encoding/json"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"
)

// timeLayout is how tables show times: local, to the minute.
const timeLayout = "2006-01-02 15:04"

func localTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format(timeLayout)
}

// newTable writes columns separated by tabs, aligned with two spaces.
func newTable(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
}

// cell makes free text (titles, error messages) safe for one table cell: a
// tab or newline in a title would break the columns.
func cell(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

// printJSON writes v as indented JSON to stdout.
func printJSON(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// shellQuote quotes s for a POSIX shell when it needs it, so that commands we
// suggest can be pasted as printed.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.,:/+=@", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
