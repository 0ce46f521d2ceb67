package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// parseWhen reads a time a user types for --since and --until: a date
// (2026-11-24, local midnight), a date and time (2026-11-24T15:04, local;
// or RFC 3339 with a zone), or an age back from now (90m, 36h, 7d, 2w).
func parseWhen(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{"2006-01-02", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02T15:04:05"} {
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
	return time.Time{}, fmt.Errorf("%q is not a time: give a date (2026-11-24), a date and time (2026-11-24T15:04) or an age (90m, 36h, 7d, 2w)", s)
}
