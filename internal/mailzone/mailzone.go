// Package mailzone reads the time zones of mail dates (RFC 822 §5, as
// RFC 1123 and RFC 2822 keep them), which page directives
// (unavailable_after) and RSS sitemaps (<pubDate>) both write.
package mailzone

import "strings"

// Offset reads a zone of a mail date, in seconds east of UTC: a name
// RFC 822 §5 defines (UT, UTC, GMT, Z and the US zones EST … PDT, in
// any case) or a numeric ±hhmm. Another name is not guessed: ok is
// false, and the caller decides (time.Parse would read it as +0000 on a
// machine that does not know it, a machine-dependent instant).
func Offset(z string) (int, bool) {
	// The zone names RFC 822 §5 defines; others are not guessed.
	switch strings.ToUpper(z) {
	case "UT", "UTC", "GMT", "Z":
		return 0, true
	case "EST":
		return -5 * 3600, true
	case "EDT":
		return -4 * 3600, true
	case "CST":
		return -6 * 3600, true
	case "CDT":
		return -5 * 3600, true
	case "MST":
		return -7 * 3600, true
	case "MDT":
		return -6 * 3600, true
	case "PST":
		return -8 * 3600, true
	case "PDT":
		return -7 * 3600, true
	}
	if len(z) == 5 && (z[0] == '+' || z[0] == '-') {
		n := 0
		for i := 1; i < 5; i++ {
			if z[i] < '0' || z[i] > '9' {
				return 0, false
			}
			n = n*10 + int(z[i]-'0')
		}
		h, m := n/100, n%100
		if h > 23 || m > 59 {
			return 0, false
		}
		off := h*3600 + m*60
		if z[0] == '-' {
			off = -off
		}
		return off, true
	}
	return 0, false
}
