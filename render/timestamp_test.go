package render

import (
	"fmt"
	"testing"
)

// tsCases are times at the edges of what appendRFC3339 takes: leap days,
// offsets that cross a day or a year, and ones it leaves to time.Parse.
var tsCases = []string{
	"2026-01-01T00:00:00Z", "2026-11-22T11:25:03.123456789Z", "2026-11-22T11:25:03.1234567891234Z",
	"2024-02-29T23:59:59Z", "2023-02-29T00:00:00Z", "2000-02-29T12:00:00Z", "1900-02-29T12:00:00Z",
	"2026-01-01T00:30:00+01:00", "2026-12-31T23:30:00-01:00", "2026-03-01T00:00:00+23:59",
	"9999-12-31T23:59:59-00:01", "0000-01-01T00:00:00+00:01", "0000-01-01T00:00:00Z",
	"2026-01-01T00:00:00-00:00", "2026-01-01T00:00:00+24:00", "2026-01-01T00:00:00+01:60",
	"2026-01-01T24:00:00Z", "2026-01-01T00:60:00Z", "2026-01-01T00:00:60Z", "2026-13-01T00:00:00Z",
	"2026-00-01T00:00:00Z", "2026-04-31T00:00:00Z", "2026-01-00T00:00:00Z",
	"2026-01-01T00:00:00.Z", "2026-01-01T00:00:00,5Z", "2026-01-01t00:00:00Z", "2026-01-01T00:00:00z",
	"2026-01-01T00:00:00", "2026-01-01T00:00:00+0100", "2026-01-01 00:00:00Z", "+026-01-01T00:00:00Z",
	"2026-01-01T00:00:00Z ", " 2026-01-01T00:00:00Z", "2026-1-01T00:00:00Z", "yesterday", "",
	"2026-01-01T00:00:00+01:00 ", "2026-01-01T00:00:00.5+05:30", "2026-01-01T0x:00:00Z",
}

// TestFormatTSFast checks appendRFC3339 against time.Parse and
// AppendFormat on tsCases, and that it takes the common shapes itself.
func TestFormatTSFast(t *testing.T) {
	for _, ts := range tsCases {
		checkFormatTS(t, ts)
	}
	for _, ts := range []string{"2026-01-01T00:00:00Z", "2026-01-01T00:00:00.123Z", "2026-01-01T00:00:00+05:30"} {
		if _, ok := appendRFC3339(nil, ts); !ok {
			t.Errorf("appendRFC3339 leaves %q to time.Parse", ts)
		}
	}
}

// FuzzFormatTS holds appendRFC3339 to the bytes formatTSParsed gives.
func FuzzFormatTS(f *testing.F) {
	for _, ts := range tsCases {
		f.Add(ts)
	}
	f.Fuzz(func(t *testing.T, ts string) { checkFormatTS(t, ts) })
}

// FuzzFormatTSFields is FuzzFormatTS on times built field by field, which
// random strings seldom spell: every date, time and offset, in range or
// just out of it.
func FuzzFormatTSFields(f *testing.F) {
	f.Add(uint16(2024), uint8(2), uint8(29), uint8(23), uint8(59), uint8(59), "123", int16(-61))
	f.Add(uint16(9999), uint8(12), uint8(31), uint8(23), uint8(30), uint8(0), "", int16(-1))
	f.Add(uint16(0), uint8(1), uint8(1), uint8(0), uint8(0), uint8(0), "", int16(1))
	f.Fuzz(func(t *testing.T, year uint16, month, day, hour, minute, sec uint8, frac string, offset int16) {
		ts := fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d", year%10000, month%14, day%33, hour%25, minute%61, sec%61)
		if frac != "" {
			ts += "." + frac
		}
		switch {
		case offset == 0:
			ts += "Z"
		case offset > 0:
			ts += fmt.Sprintf("+%02d:%02d", offset/100%25, offset%100%61)
		default:
			ts += fmt.Sprintf("-%02d:%02d", -offset/100%25, -offset%100%61)
		}
		checkFormatTS(t, ts)
	})
}

func checkFormatTS(t *testing.T, ts string) {
	t.Helper()
	want := formatTSParsed(ts)
	if got, ok := appendRFC3339([]byte("x"), ts); ok && string(got) != "x"+want {
		t.Fatalf("appendRFC3339(%q) = %q, time.Parse gives %q", ts, got[1:], want)
	}
	if got := formatTS(ts); got != want {
		t.Fatalf("formatTS(%q) = %q, want %q", ts, got, want)
	}
}
