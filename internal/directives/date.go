package directives

// This file reads the date of an unavailable_after page directive. Search
// engines document RFC 822, RFC 850 and ISO 8601 forms; sites write all
// of them, with or without a weekday, a time or a zone.

import (
	"strings"
	"time"

	"github.com/robotsext/robotsext/internal/mailzone"
)

// isoLayouts are the ISO 8601 forms read; a form without a zone is UTC.
var isoLayouts = [...]string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05",
	"2006-01-02 15:04",
	"2006-01-02",
}

// mailLayouts are the RFC 822, RFC 850 and asctime forms read once the
// weekday and the zone are taken off.
var mailLayouts = [...]string{
	"2 Jan 2006 15:04:05",
	"2 Jan 2006 15:04",
	"2 Jan 06 15:04:05",
	"2 Jan 06 15:04",
	"2-Jan-2006 15:04:05",
	"2-Jan-06 15:04:05",
	"2 January 2006 15:04:05",
	"2 January 2006 15:04",
	"Jan 2 15:04:05 2006",
	"2 Jan 2006",
	"2-Jan-2006",
	"2 January 2006",
}

// parseDirectiveDate reads an unavailable_after date into UTC. A date
// without a zone is taken as UTC; a zone name other than RFC 822's (UT,
// GMT, EST, EDT, CST, CDT, MST, MDT, PST, PDT) or a numeric ±hhmm makes
// the date unreadable rather than misread.
func parseDirectiveDate(s string) (time.Time, bool) {
	s = trimOWS(s)
	if s == "" || len(s) > 64 {
		return time.Time{}, false
	}
	if s[0] >= '0' && s[0] <= '9' && len(s) >= 10 && s[4] == '-' {
		for _, l := range isoLayouts {
			if t, err := time.Parse(l, s); err == nil {
				return t.UTC(), true
			}
		}
		return time.Time{}, false
	}
	// A weekday first, with or without its comma.
	if w, rest, ok := strings.Cut(s, ","); ok && isWeekday(trimOWS(w)) {
		s = trimOWS(rest)
	} else if w, rest, ok := strings.Cut(s, " "); ok && isWeekday(w) {
		s = trimOWS(rest)
	}
	offset := 0
	if i := strings.LastIndexByte(s, ' '); i > 0 {
		z := s[i+1:]
		if off, ok := mailzone.Offset(z); ok {
			offset, s = off, trimOWS(s[:i])
		} else if isLetters(z) {
			return time.Time{}, false // a zone we do not know
		}
	}
	for _, l := range mailLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.Add(-time.Duration(offset) * time.Second).UTC(), true
		}
	}
	return time.Time{}, false
}

func isWeekday(w string) bool {
	for _, d := range [...]string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun",
		"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"} {
		if strings.EqualFold(w, d) {
			return true
		}
	}
	return false
}

func isLetters(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}
