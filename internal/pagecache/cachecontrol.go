package pagecache

// This file reads Cache-Control (RFC 9111 §5.2): the directives a cache
// obeys, in requests and responses.

import (
	"net/http"
	"strconv"
	"strings"
)

// Directives is what the Cache-Control fields of a message say to a
// private cache. The zero value says nothing.
type Directives struct {
	NoStore        bool
	NoCache        bool // qualified (no-cache="f") or not: both revalidate before each reuse
	MustRevalidate bool
	// MaxAge is max-age in seconds; HasMaxAge reports that it was given.
	// A malformed max-age counts as max-age=0 (§4.2.1: invalid freshness
	// information makes a response stale).
	MaxAge    int64
	HasMaxAge bool
}

// maxDeltaSeconds is the largest delta-seconds kept (2^31, as RFC 9111
// §1.2.2 asks of a value that overflows).
const maxDeltaSeconds = 1 << 31

// ParseCacheControl reads every Cache-Control field of h. Directive names
// are case-insensitive; unknown directives and s-maxage (for shared caches
// only) are ignored; a repeated max-age keeps the smallest.
func ParseCacheControl(h http.Header) Directives {
	var d Directives
	for _, line := range h.Values("Cache-Control") {
		for len(line) > 0 {
			var item string
			item, line = nextDirective(line)
			name, val, hasVal := strings.Cut(item, "=")
			name = strings.ToLower(strings.TrimSpace(name))
			val = strings.Trim(strings.TrimSpace(val), `"`)
			switch name {
			case "no-store":
				d.NoStore = true
			case "no-cache":
				d.NoCache = true
			case "must-revalidate", "proxy-revalidate":
				d.MustRevalidate = true
			case "max-age":
				secs := deltaSeconds(val, hasVal)
				if !d.HasMaxAge || secs < d.MaxAge {
					d.MaxAge = secs
				}
				d.HasMaxAge = true
			}
		}
	}
	return d
}

// nextDirective splits off the first comma-separated directive of s,
// keeping a comma inside a quoted value (no-cache="a, b").
func nextDirective(s string) (item, rest string) {
	quoted := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			quoted = !quoted
		case '\\':
			if quoted {
				i++
			}
		case ',':
			if !quoted {
				return s[:i], s[i+1:]
			}
		}
	}
	return s, ""
}

// deltaSeconds reads a delta-seconds value: 0 when absent or malformed,
// at most maxDeltaSeconds.
func deltaSeconds(v string, hasVal bool) int64 {
	if !hasVal || v == "" {
		return 0
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return 0
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n > maxDeltaSeconds {
		return maxDeltaSeconds
	}
	return n
}
