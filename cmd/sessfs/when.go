package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// parseWhen reads a time a user types for --since and --until, the one
// rule of every command that takes them: a local day (2026-11-24, or
// 20261124 as ccusage takes it), a local day and time (2026-11-24T15:04),
// an RFC 3339 time, or an age back from now (90m, 36h, 7d, 2w). A day is
// its start, or for end (--until) the next day's start, so that --until
// includes the day it names. "" is no bound: the zero time.
func parseWhen(s string, now time.Time, end bool) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.DateOnly, "20060102"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			if end {
				t = t.AddDate(0, 0, 1)
			}
			return t, nil
		}
	}
	for _, layout := range []string{"2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02T15:04:05"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if len(s) > 1 {
		unit := map[byte]time.Duration{'m': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}[s[len(s)-1]]
		if n, err := strconv.Atoi(s[:len(s)-1]); err == nil && unit != 0 && n >= 0 {
			return now.Add(-time.Duration(n) * unit), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time: give a day (2026-11-24), a day and time (2026-11-24T15:04) or an age (90m, 36h, 7d, 2w)", s)
}
