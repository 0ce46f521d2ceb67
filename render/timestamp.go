package render

import "time"

// formatTS shortens an RFC 3339 time to whole seconds in UTC; a time that
// does not parse is shown as stored, cut at maxLabel, rather than dropped.
// The result is plain text, which each format escapes.
func formatTS(ts string) string {
	var buf [32]byte // no copy but the result's
	if b, ok := appendRFC3339(buf[:0], ts); ok {
		return string(b)
	}
	return formatTSParsed(ts)
}

// appendTS appends a message's time as formatTS shows it, escaped by
// esc (each format's escape for plain text), between before and after; or
// nothing when the message has none. A well-formed time needs no escape,
// so it costs neither a string nor a copy.
func appendTS(dst []byte, f *fields, before, after string, esc func(string) string) []byte {
	if b, ok := f.ts.plainBytes(); ok {
		if len(b) == 0 {
			return dst
		}
		if out, ok := appendRFC3339(append(dst, before...), b); ok {
			return append(out, after...)
		}
	}
	ts, ok := f.ts.str()
	if !ok || ts == "" {
		return dst
	}
	dst = append(dst, before...)
	return append(append(dst, esc(formatTS(ts))...), after...)
}

// formatTSParsed is formatTS by time.Parse, for any time: the rule that
// appendRFC3339 only makes fast.
func formatTSParsed(ts string) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return clip(ts, maxLabel)
	}
	var buf [32]byte
	return string(append(t.UTC().AppendFormat(buf[:0], "2006-01-02 15:04:05"), " UTC"...))
}

// appendRFC3339 appends ts as formatTS shows it when ts is the RFC 3339
// time every message carries ("2026-01-01T00:00:00Z", maybe with a
// fraction, maybe with an offset), and reports false for anything else,
// which formatTSParsed decides. time.Parse and AppendFormat were a tenth
// of rendering a message; this takes what time.Parse's own fast path
// takes, by the same checks, and gives the same bytes
// (FuzzFormatTS holds it to that).
func appendRFC3339[T string | []byte](dst []byte, ts T) ([]byte, bool) {
	if len(ts) < len("2006-01-02T15:04:05Z") ||
		ts[4] != '-' || ts[7] != '-' || ts[10] != 'T' || ts[13] != ':' || ts[16] != ':' {
		return dst, false
	}
	century, ok1 := digits2(ts, 0)
	yy, ok2 := digits2(ts, 2)
	month, ok3 := digits2(ts, 5)
	day, ok4 := digits2(ts, 8)
	hour, ok5 := digits2(ts, 11)
	minute, ok6 := digits2(ts, 14)
	sec, ok7 := digits2(ts, 17)
	year := century*100 + yy
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) || month < 1 || month > 12 ||
		day < 1 || day > daysIn(month, year) || hour > 23 || minute > 59 || sec > 59 {
		return dst, false
	}
	rest := ts[19:]
	if rest[0] == '.' { // a fraction: shown in whole seconds, so only skipped
		n := 1
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n == 1 {
			return dst, false
		}
		rest = rest[n:]
	}
	if len(rest) == 1 && rest[0] == 'Z' {
		// Already in UTC, as nearly every stored time is: its digits are
		// the ones shown.
		dst = append(dst, ts[:10]...)
		dst = append(dst, ' ')
		dst = append(dst, ts[11:19]...)
		return append(dst, " UTC"...), true
	}
	if len(rest) != len("+07:00") || (rest[0] != '+' && rest[0] != '-') || rest[3] != ':' {
		return dst, false
	}
	hh, ok1 := digits2(rest, 1)
	mm, ok2 := digits2(rest, 4)
	if !ok1 || !ok2 || hh > 23 || mm > 59 {
		return dst, false
	}
	offset := time.Duration(hh*60+mm) * time.Minute
	if rest[0] == '-' {
		offset = -offset
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, 0, time.UTC).Add(-offset)
	var m time.Month
	year, m, day = t.Date()
	month = int(m)
	hour, minute, sec = t.Clock()
	if year < 0 || year > 9999 { // AppendFormat's own spelling
		return dst, false
	}
	dst = append(dst, byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-')
	dst = append2(append2(dst, month, '-'), day, ' ')
	dst = append2(append2(append2(dst, hour, ':'), minute, ':'), sec, ' ')
	return append(dst, "UTC"...), true
}

// digits2 reads the two decimal digits s[i:i+2].
func digits2[T string | []byte](s T, i int) (int, bool) {
	hi, lo := s[i]-'0', s[i+1]-'0' // a byte that is no digit wraps past 9
	return int(hi)*10 + int(lo), hi <= 9 && lo <= 9
}

// append2 appends n, below 100, in two digits, then sep.
func append2(dst []byte, n int, sep byte) []byte {
	return append(dst, byte('0'+n/10), byte('0'+n%10), sep)
}

// daysIn is the number of days of month in year, leap years counted.
func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
