package robotstxt

// This file reads the pace a file asks for: Crawl-delay and Request-rate
// values.

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"time"
)

// parseCrawlDelay reads a Crawl-delay value: decimal seconds, zero or
// more. Zero is kept: a site that writes "Crawl-delay: 0" states that it
// asks for no pace, which is not the same as stating nothing. Anything
// else (a negative number, NaN, a word) is ignored. Values too large for
// a time.Duration saturate.
func parseCrawlDelay(v []byte) (time.Duration, bool) {
	f, err := strconv.ParseFloat(string(firstField(v)), 64)
	if err != nil || !(f >= 0) {
		return 0, false
	}
	return seconds(f), true
}

// parseRequestRate reads "n/t" with an optional unit s, m or h on t
// (seconds when absent) and returns the interval t/n. Anything after the
// first field (such as a time window) is ignored.
func parseRequestRate(v []byte) (time.Duration, bool) {
	field := string(firstField(v))
	num, per, ok := strings.Cut(field, "/")
	if !ok {
		return 0, false
	}
	unit := 1.0
	if k := len(per); k > 0 {
		switch lower(per[k-1]) {
		case 's':
			per = per[:k-1]
		case 'm':
			unit, per = 60, per[:k-1]
		case 'h':
			unit, per = 3600, per[:k-1]
		}
	}
	n, err1 := strconv.ParseFloat(num, 64)
	t, err2 := strconv.ParseFloat(per, 64)
	if err1 != nil || err2 != nil || !(n > 0) || !(t > 0) || math.IsInf(n, 0) {
		return 0, false
	}
	return seconds(t * unit / n), true
}

func firstField(v []byte) []byte {
	if k := bytes.IndexAny(v, " \t"); k >= 0 {
		return v[:k]
	}
	return v
}

// seconds converts to a Duration, saturating instead of overflowing.
func seconds(f float64) time.Duration {
	if f*float64(time.Second) >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(f * float64(time.Second))
}
