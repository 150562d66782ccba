package sitemap

// This file reads the dates of RSS <pubDate>: RFC 822 §5 (as RFC 1123
// and RFC 2822 amend it) and RFC 850, by hand, because time.Parse reads
// a zone name it does not know in time.Local as a zero offset, so that
// "EST" would give a machine-dependent instant.

import (
	"strconv"
	"strings"
	"time"

	"github.com/robotsext/robotsext/internal/mailzone"
)

// months are the month names, by their first three letters.
var months = map[string]time.Month{
	"JAN": 1, "FEB": 2, "MAR": 3, "APR": 4, "MAY": 5, "JUN": 6,
	"JUL": 7, "AUG": 8, "SEP": 9, "OCT": 10, "NOV": 11, "DEC": 12,
}

// parseRFC822 reads "[Mon,] 2 Jan 2006 15:04[:05] zone", the day, month
// and year also joined by '-' (RFC 850: "Monday, 02-Jan-06 15:04:05
// GMT"); a two-digit year is 1950–2049 (RFC 2822 §4.3). The zone is ±hhmm
// or a name of RFC 822 §5; a military letter other than Z reads as UTC
// (RFC 2822 §4.3), and no zone as UTC. Another zone name, or anything
// else, is not a date: ok is false.
func parseRFC822(s string) (t time.Time, ok bool) {
	if i := strings.IndexByte(s, ','); i >= 0 {
		if !isAlpha(strings.TrimSpace(s[:i])) {
			return time.Time{}, false
		}
		s = s[i+1:]
	}
	f := strings.Fields(s)
	if len(f) >= 1 && strings.Count(f[0], "-") == 2 {
		f = append(strings.Split(f[0], "-"), f[1:]...)
	}
	if len(f) == 4 {
		f = append(f, "UT")
	}
	if len(f) != 5 {
		return time.Time{}, false
	}
	day, ok1 := digits(f[0], 1, 2)
	mon, ok2 := months[strings.ToUpper(f[1][:min(3, len(f[1]))])]
	year, ok3 := digits(f[2], 2, 4)
	hh, mm, ss, ok4 := clock(f[3])
	off, ok5 := zone(f[4])
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || len(f[2]) == 3 || !isAlpha(f[1]) {
		return time.Time{}, false
	}
	if len(f[2]) == 2 {
		year += 1900
		if year < 1950 {
			year += 100
		}
	}
	t = time.Date(year, mon, day, hh, mm, ss, 0, time.UTC)
	if t.Day() != day || t.Hour() != hh || t.Minute() != mm || t.Second() != ss {
		return time.Time{}, false // 31 Feb, 25:00
	}
	return t.Add(-time.Duration(off) * time.Second), true
}

// clock reads hh:mm or hh:mm:ss.
func clock(s string) (hh, mm, ss int, ok bool) {
	p := strings.Split(s, ":")
	if len(p) < 2 || len(p) > 3 {
		return 0, 0, 0, false
	}
	hh, ok1 := digits(p[0], 1, 2)
	mm, ok2 := digits(p[1], 2, 2)
	ok3 := true
	if len(p) == 3 {
		ss, ok3 = digits(p[2], 2, 2)
	}
	return hh, mm, ss, ok1 && ok2 && ok3 && hh < 24 && mm < 60 && ss < 61
}

// zone reads a zone as seconds east of UTC (mailzone.Offset), a
// military letter other than Z as UTC.
func zone(s string) (int, bool) {
	if off, ok := mailzone.Offset(s); ok {
		return off, true
	}
	if u := s[0] | 0x20; len(s) == 1 && u >= 'a' && u <= 'z' && u != 'j' {
		return 0, true // a military zone: RFC 2822 reads it as -0000
	}
	return 0, false
}

// digits reads s, of lo to hi ASCII digits.
func digits(s string, lo, hi int) (int, bool) {
	if len(s) < lo || len(s) > hi {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// isAlpha reports whether s is ASCII letters only, at least one.
func isAlpha(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return s != ""
}
