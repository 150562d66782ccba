package sitemap

import (
	"strings"
	"time"
)

// W3C Datetime profiles (https://www.w3.org/TR/NOTE-datetime), most
// precise first, with the lenient variants seen in the wild: a space for
// the T, no time zone (read as UTC), a zone without its colon.
var w3cLayouts = []string{
	"2006-01-02T15:04:05.999999999Z07:00",
	"2006-01-02T15:04:05Z07:00",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02T15:04:05Z0700",
	"2006-01-02T15:04Z0700",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04",
	"2006-01-02",
	"2006-01",
	"2006",
}

// maxDateBytes bounds the text a date is read from.
const maxDateBytes = 64

// ParseLastMod reads a W3C Datetime, leniently (see w3cLayouts), or
// else an RFC 822/1123/850 date (RSS, see parseRFC822), in UTC; the zero time when s is
// neither.
func ParseLastMod(s string) time.Time {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > maxDateBytes {
		return time.Time{}
	}
	w := strings.ToUpper(strings.Replace(s, " ", "T", 1))
	for _, l := range w3cLayouts {
		if t, err := time.Parse(l, w); err == nil {
			return t.UTC()
		}
	}
	t, _ := parseRFC822(s)
	return t
}
