package pagecache

// This file decides whether a stored response may be reused (RFC 9111
// §4.2: its freshness lifetime and its current age) and whether a
// response may be stored at all (§3).

import (
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"time"
)

const (
	// HeuristicFraction is the part of the time since Last-Modified that a
	// response without an explicit lifetime stays fresh (RFC 9111 §4.2.2's
	// "typical setting" of 10%).
	HeuristicFraction = 10 // percent
	// MaxHeuristic caps a heuristic lifetime.
	MaxHeuristic = 24 * time.Hour
)

// Lifetime is the freshness lifetime of a response with header h received
// at received (RFC 9111 §4.2.1): max-age, else Expires minus Date, else,
// only where neither is given, a heuristic from Last-Modified (§4.2.2: a
// heuristic is not used beside an explicit lifetime, max-age=0 included).
// A malformed Expires makes the response stale (lifetime 0).
func Lifetime(h http.Header, cc Directives, received time.Time) time.Duration {
	if cc.HasMaxAge {
		return time.Duration(cc.MaxAge) * time.Second
	}
	date := dateOf(h, received)
	if vs := h.Values("Expires"); len(vs) > 0 {
		exp, err := http.ParseTime(vs[0])
		if err != nil || len(vs) > 1 || !exp.After(date) {
			return 0
		}
		return exp.Sub(date)
	}
	lm, err := http.ParseTime(h.Get("Last-Modified"))
	if err != nil || !lm.Before(date) {
		return 0
	}
	return min(date.Sub(lm)*HeuristicFraction/100, MaxHeuristic)
}

// dateOf is the response's Date, or received when it has none that reads.
func dateOf(h http.Header, received time.Time) time.Time {
	if d, err := http.ParseTime(h.Get("Date")); err == nil {
		return d
	}
	return received
}

// Age is e's current age at now (RFC 9111 §4.2.3): its Age field and the
// time it spent in transit and stored.
func Age(e *Entry, now time.Time) time.Duration {
	var ageValue time.Duration
	if secs := deltaSeconds(strings.TrimSpace(e.Header.Get("Age")), true); secs > 0 {
		ageValue = time.Duration(secs) * time.Second
	}
	apparent := max(0, e.ResponseTime.Sub(dateOf(e.Header, e.ResponseTime)))
	delay := max(0, e.ResponseTime.Sub(e.RequestTime))
	initial := max(apparent, ageValue+delay)
	return initial + max(0, now.Sub(e.ResponseTime))
}

// Fresh reports whether e may be served at now without asking the origin
// for a request whose Cache-Control says req: it must be within its
// lifetime, within the request's max-age if any, and neither e nor the
// request may say no-cache (§4.2, §5.2.1.4, §5.2.2.4).
func Fresh(e *Entry, req Directives, now time.Time) bool {
	cc := ParseCacheControl(e.Header)
	if cc.NoCache || req.NoCache || req.NoStore {
		return false
	}
	age := Age(e, now)
	if req.HasMaxAge && age > time.Duration(req.MaxAge)*time.Second {
		return false
	}
	return Lifetime(e.Header, cc, e.ResponseTime) > age
}

// Storable reports whether a response to method with status and header h
// may be stored, for a request whose Cache-Control says req (RFC 9111 §3,
// for a private cache: private is storable): GET or HEAD, no no-store on
// either side, no "Vary: *"; a 200 with something to reuse it by (an
// explicit or heuristic lifetime, or a validator), or another status
// RFC 9110 §15.1 makes cacheable by default (301, 308, 404, 410, …) with an
// explicit lifetime.
func Storable(method string, status int, h http.Header, req Directives) bool {
	if (method != http.MethodGet && method != http.MethodHead) || req.NoStore {
		return false
	}
	cc := ParseCacheControl(h)
	if cc.NoStore {
		return false
	}
	for _, f := range varyFields(h) {
		if f == "*" {
			return false
		}
	}
	explicit := cc.HasMaxAge || len(h.Values("Expires")) > 0
	switch status {
	case http.StatusOK:
		return explicit || h.Get("ETag") != "" || h.Get("Last-Modified") != ""
	case http.StatusNonAuthoritativeInfo, http.StatusNoContent, http.StatusMultipleChoices, http.StatusMovedPermanently,
		http.StatusPermanentRedirect, http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusGone,
		http.StatusRequestURITooLong, http.StatusNotImplemented:
		return explicit
	}
	return false
}

// varyFields lists the field names the Vary fields of h nominate, in
// canonical form.
func varyFields(h http.Header) []string {
	var out []string
	for _, line := range h.Values("Vary") {
		for f := range strings.SplitSeq(line, ",") {
			if f = strings.TrimSpace(f); f != "" {
				if f != "*" {
					f = textproto.CanonicalMIMEHeaderKey(f)
				}
				out = append(out, f)
			}
		}
	}
	return out
}

// VaryValues returns the values of the request fields that response
// header h nominates, as the request with header req sends them.
func VaryValues(h, req http.Header) map[string]string {
	fs := varyFields(h)
	if len(fs) == 0 {
		return nil
	}
	out := make(map[string]string, len(fs))
	for _, f := range fs {
		out[f] = fieldValue(req, f)
	}
	return out
}

// VaryMatches reports whether a request with header req may reuse e:
// every field e's response nominated has the same value (its field lines
// combined, whitespace around commas ignored) as when e was stored
// (§4.1).
func VaryMatches(e *Entry, req http.Header) bool {
	for _, f := range varyFields(e.Header) {
		if f == "*" {
			return false
		}
		if fieldValue(req, f) != e.Vary[f] {
			return false
		}
	}
	return true
}

// fieldValue combines the field lines of f in h, normalised.
func fieldValue(h http.Header, f string) string {
	var parts []string
	for _, v := range h.Values(f) {
		for p := range strings.SplitSeq(v, ",") {
			parts = append(parts, strings.TrimSpace(p))
		}
	}
	return strings.Join(parts, ",")
}

// ageSeconds formats an age for the Age field of a served response.
func ageSeconds(d time.Duration) string { return strconv.FormatInt(int64(d/time.Second), 10) }
