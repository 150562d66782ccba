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

// RFC 822/1123 dates of RSS <pubDate>, with and without the weekday,
// seconds and a two-digit day.
var rssLayouts = []string{
	time.RFC1123Z, time.RFC1123, time.RFC822Z, time.RFC822,
	"Mon, 2 Jan 2006 15:04:05 -0700", "Mon, 2 Jan 2006 15:04:05 MST",
	"2 Jan 2006 15:04:05 -0700", "2 Jan 2006 15:04:05 MST",
	"02 Jan 2006 15:04:05 -0700", "02 Jan 2006 15:04:05 MST",
	"Mon, 2 Jan 2006 15:04 -0700", "Mon, 2 Jan 2006 15:04 MST",
}

// maxDateBytes bounds the text a date is read from.
const maxDateBytes = 64

// ParseLastMod reads a W3C Datetime, leniently (see w3cLayouts), or
// else an RFC 822/1123 date (RSS), in UTC; the zero time when s is
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
	for _, l := range rssLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}
