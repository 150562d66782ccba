// Package ratelimit reads what a response says of the client's quota: the
// RateLimit header field of draft-ietf-httpapi-ratelimit-headers (-11,
// May 2026), and, where it is unambiguous, the older RateLimit-Remaining
// and X-RateLimit-* fields. A crawler needs one fact from them: whether a
// quota is spent, and for how long the server said it stays spent.
//
// The RateLimit field is an RFC 9651 List of service-limit Items, one per
// quota policy: the Item names the policy, its parameter r is the quota
// left (a non-negative Integer, required) and t the effective window in
// seconds (a non-negative Integer, optional), as in
//
//	RateLimit: "burst";r=0;t=2, "daily";r=900;t=86400
//
// A policy with r=0 and a window t > 0 is spent for t seconds; with r=0
// and no t it is spent for a time the field does not say. Of several
// spent policies the longest window counts. RateLimit-Policy, the
// policies' static description, is informative (the draft lets clients
// ignore it) and is not read. Malformed fields must be ignored (draft
// §7), and so are responses served from a cache (an Age above 0, §7.3),
// whose fields may be stale.
//
// The older fields carry no policy names: X-RateLimit-Remaining (or
// RateLimit-Remaining, the drafts' name up to -06) of exactly 0 is a spent
// quota, and X-RateLimit-Reset (RateLimit-Reset) says until when, as
// seconds from now on some sites and as a Unix time on others. Only the
// magnitude can tell them apart, and it does where the reading is
// unambiguous: below 10^9 (which as a Unix time would be before 2001) it
// is seconds from now; from 10^9 to 10^10 it is a Unix time in seconds.
// Anything else (milliseconds, fractions, words) gives no window. These
// fields are read only when the response has no RateLimit field.
package ratelimit

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/dunglas/httpsfv"
)

// MaxFieldLen bounds the RateLimit field read, in octets (all its field
// lines together): a longer one is ignored. Servers send a few dozen.
const MaxFieldLen = 4 << 10

// Limit is what a response said of the client's quota.
type Limit struct {
	// Spent reports that a quota policy has no quota left.
	Spent bool
	// Reset is how long the server said the quota stays spent: the
	// longest window of the spent policies, or the older fields' reset.
	// 0 when no field says.
	Reset time.Duration
}

// Canonical header keys, so that reading them allocates nothing.
const (
	keyRateLimit  = "Ratelimit" // http.CanonicalHeaderKey("RateLimit")
	keyAge        = "Age"
	keyRemaining  = "Ratelimit-Remaining"
	keyReset      = "Ratelimit-Reset"
	keyXRemaining = "X-Ratelimit-Remaining"
	keyXReset     = "X-Ratelimit-Reset"
)

// Read reads the quota fields of a response's header h; now is the clock
// an X-RateLimit-Reset Unix time is compared with, read only then. ok is false
// when they say nothing to act on: no field, a malformed one, quota left
// under every policy, or a response from a cache. A response without any
// of these fields costs a few map look-ups.
func Read(h http.Header, now func() time.Time) (l Limit, ok bool) {
	rl, newer := h[keyRateLimit]
	remaining, older := h[keyXRemaining]
	reset := h[keyXReset]
	if !older {
		remaining, older = h[keyRemaining]
		reset = h[keyReset]
	}
	if !newer && !older {
		return Limit{}, false
	}
	if fromCache(h[keyAge]) {
		return Limit{}, false
	}
	if newer {
		return Parse(rl)
	}
	return parseOlder(remaining, reset, now())
}

// fromCache reports whether an Age field says the response was served
// from a cache (a current age above 0).
func fromCache(age []string) bool {
	if len(age) == 0 {
		return false
	}
	n, err := strconv.ParseUint(strings.TrimSpace(age[0]), 10, 64)
	return err == nil && n > 0
}

// Parse reads the field lines of a RateLimit field. ok is false when the
// field is malformed (not a List of Items, an Item without r, an r or t
// that is not a non-negative Integer), longer than MaxFieldLen, or has
// quota left under every policy. A policy spent with t=0 has its window
// behind it and is not spent.
func Parse(lines []string) (l Limit, ok bool) {
	n := 0
	for _, s := range lines {
		n += len(s)
	}
	if n == 0 || n > MaxFieldLen {
		return Limit{}, false
	}
	list, err := httpsfv.UnmarshalList(lines)
	if err != nil || len(list) == 0 {
		return Limit{}, false
	}
	for _, m := range list {
		it, isItem := m.(httpsfv.Item)
		if !isItem {
			return Limit{}, false
		}
		switch it.Value.(type) {
		case string, httpsfv.Token: // the policy's name; the draft writes a String
		default:
			return Limit{}, false
		}
		r, ok := nonNegative(it.Params, "r")
		if !ok {
			return Limit{}, false
		}
		t, hasT := nonNegative(it.Params, "t")
		if !hasT && present(it.Params, "t") {
			return Limit{}, false
		}
		if r != 0 || (hasT && t == 0) {
			continue
		}
		l.Spent = true
		if hasT {
			l.Reset = max(l.Reset, seconds(t))
		}
	}
	return l, l.Spent
}

// nonNegative returns the parameter k of ps when it is a non-negative
// Integer.
func nonNegative(ps *httpsfv.Params, k string) (int64, bool) {
	if ps == nil {
		return 0, false
	}
	v, ok := ps.Get(k)
	if !ok {
		return 0, false
	}
	n, ok := v.(int64)
	return n, ok && n >= 0
}

// present reports whether ps has a parameter k.
func present(ps *httpsfv.Params, k string) bool {
	if ps == nil {
		return false
	}
	_, ok := ps.Get(k)
	return ok
}

// maxSeconds is the largest number of seconds a time.Duration holds.
const maxSeconds = int64(1<<63-1) / int64(time.Second)

// seconds converts n seconds to a Duration, saturating.
func seconds(n int64) time.Duration {
	if n > maxSeconds {
		return time.Duration(1<<63 - 1)
	}
	return time.Duration(n) * time.Second
}

// The Unix times an X-RateLimit-Reset may be read as: from 2001-09-09 to
// 2286-11-20, in seconds. Below, a value can only be seconds from now.
const (
	minEpoch = 1_000_000_000
	maxEpoch = 10_000_000_000
)

// parseOlder reads the older fields: remaining must be the one value 0,
// and reset gives the window where its reading is unambiguous (see the
// package comment).
func parseOlder(remaining, reset []string, now time.Time) (Limit, bool) {
	if len(remaining) != 1 || strings.TrimSpace(remaining[0]) != "0" {
		return Limit{}, false
	}
	l := Limit{Spent: true}
	if len(reset) != 1 {
		return l, true
	}
	n, err := strconv.ParseInt(strings.TrimSpace(reset[0]), 10, 64)
	switch {
	case err != nil || n <= 0:
	case n < minEpoch:
		l.Reset = seconds(n)
	case n < maxEpoch:
		if d := time.Unix(n, 0).Sub(now); d > 0 {
			l.Reset = d
		}
	}
	return l, true
}
