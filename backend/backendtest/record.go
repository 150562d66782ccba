package backendtest

// This file checks that records round-trip, and provides the sample
// records and the comparison other backend tests can reuse (for example
// to test an encoding without a server).

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/robotsext/robotsext/backend"
)

// TimePrecision is the precision a Backend must keep times with; Diff
// accepts differences below it. Locations and monotonic clock readings
// need not survive, and the zero time must stay zero.
const TimePrecision = time.Millisecond

// Records returns sample records covering every field of Record and
// Answer: minimal and full records, a good copy kept beside an unreachable
// answer, nil and empty bodies, a 500 KiB body, times with nanoseconds and
// non-UTC locations, empty and non-ASCII strings. Every record's KeepUntil
// is at least a day after now, so no backend may forget it during a test.
// The map is new on each call; callers may modify it.
func Records(now time.Time) map[string]*backend.Record {
	zone := time.FixedZone("UTC+5:30", 5*3600+1800)
	fetched := now.Add(-3*time.Hour - 123456789*time.Nanosecond).In(zone)
	expires := now.Add(21*time.Hour + 987654321*time.Nanosecond)
	body := []byte("User-agent: *\nDisallow: /private\nAllow: /private/ok\nCrawl-delay: 2\nSitemap: https://full.example/sitemap.xml\n")

	full := backend.Answer{
		URL:          "https://full.example/robots.txt",
		FinalURL:     "https://www.full.example/robots.txt",
		Redirects:    2,
		Status:       200,
		Outcome:      backend.OutcomeOK,
		Body:         body,
		Truncated:    true,
		NotModified:  true,
		FetchedAt:    fetched,
		Expires:      expires,
		RetryAfter:   90*time.Second + 7*time.Millisecond,
		ETag:         `W/"5f3a-ü"`,
		LastModified: "Wed, 21 Oct 2015 07:28:00 GMT",
	}
	unreachable := backend.Answer{
		URL:        "https://full.example/robots.txt",
		FinalURL:   "https://full.example/robots.txt",
		Status:     503,
		Outcome:    backend.OutcomeUnreachable,
		Err:        "robotsext: robots.txt answered 503 Service Unavailable — retry later",
		FetchedAt:  now.Add(-time.Minute),
		Expires:    now.Add(2 * time.Minute),
		RetryAfter: 2 * time.Minute,
	}

	return map[string]*backend.Record{
		"minimal": {
			Latest:  backend.Answer{Outcome: backend.OutcomeUnavailable, Status: 404},
			Expires: now.Add(25 * time.Hour),
		},
		"ok": {
			Latest:  full,
			GoodAt:  fetched,
			Expires: expires,
		},
		"good copy beside an unreachable answer": {
			Latest:   unreachable,
			Good:     &full,
			GoodAt:   fetched,
			Failures: 4,
			Expires:  now.Add(2 * time.Minute),
		},
		"empty body": {
			Latest:  backend.Answer{URL: "http://empty.example/robots.txt", Status: 200, Outcome: backend.OutcomeOK, Body: []byte{}, FetchedAt: now},
			GoodAt:  now,
			Expires: now.Add(25 * time.Hour),
		},
		"nil body": {
			Latest:  backend.Answer{URL: "http://nil.example/robots.txt", Status: 200, Outcome: backend.OutcomeOK, FetchedAt: now},
			GoodAt:  now,
			Expires: now.Add(25 * time.Hour),
		},
		"unauthorized, no times": {
			Latest:  backend.Answer{URL: "https://auth.example/robots.txt", Status: 403, Outcome: backend.OutcomeUnauthorized},
			Expires: now.Add(48 * time.Hour),
		},
		"500 KiB body": {
			Latest:  backend.Answer{URL: "https://big.example/robots.txt", Status: 200, Outcome: backend.OutcomeOK, Body: BigBody(500 << 10), Truncated: true, FetchedAt: now},
			GoodAt:  now,
			Expires: now.Add(25 * time.Hour),
		},
		"binary body": {
			Latest:  backend.Answer{URL: "https://bin.example/robots.txt", Status: 200, Outcome: backend.OutcomeOK, Body: randomBytes(4096), FetchedAt: now},
			GoodAt:  now,
			Expires: now.Add(25 * time.Hour),
		},
	}
}

// BigBody returns a robots.txt of n bytes that looks like a large real one
// (many groups and rules, so that it compresses as real files do), for
// round-trip tests and memory measurements.
func BigBody(n int) []byte {
	var b strings.Builder
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; b.Len() < n; i++ {
		if i%50 == 0 {
			fmt.Fprintf(&b, "\nUser-agent: bot%d\nCrawl-delay: %d\n", i/50, r.IntN(10))
		}
		fmt.Fprintf(&b, "Disallow: /section-%d/item-%x/*?sort=%d\n", r.IntN(500), r.Uint32(), r.IntN(9))
	}
	return []byte(b.String()[:n])
}

// randomBytes returns n reproducible bytes that do not compress.
func randomBytes(n int) []byte {
	r := rand.New(rand.NewPCG(3, 4))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// sampleRecord returns a small good record for origin, valid for a day.
func sampleRecord(origin string) *backend.Record {
	now := time.Now()
	return &backend.Record{
		Latest: backend.Answer{
			URL:       origin + "/robots.txt",
			FinalURL:  origin + "/robots.txt",
			Status:    200,
			Outcome:   backend.OutcomeOK,
			Body:      []byte("User-agent: *\nDisallow: /private\nCrawl-delay: 1\n"),
			FetchedAt: now,
			Expires:   now.Add(24 * time.Hour),
			ETag:      `"abc"`,
		},
		GoodAt:  now,
		Expires: now.Add(24 * time.Hour),
	}
}

// cloneRecord returns a deep copy of r.
func cloneRecord(r *backend.Record) *backend.Record {
	c := *r
	c.Latest.Body = bytes.Clone(r.Latest.Body)
	if r.Good != nil {
		g := *r.Good
		g.Body = bytes.Clone(r.Good.Body)
		c.Good = &g
	}
	return &c
}

// Diff describes how got differs from want, or returns "" when they are
// the same record as far as a Backend must keep it: every field equal,
// times to TimePrecision (zero staying zero), nil and empty bodies told
// apart, Good present or absent alike.
func Diff(want, got *backend.Record) string {
	switch {
	case want == nil && got == nil:
		return ""
	case want == nil:
		return fmt.Sprintf("got a record, want none: %+v", got)
	case got == nil:
		return "got no record, want one"
	}
	var d []string
	d = diffAnswer(d, "Latest", &want.Latest, &got.Latest)
	switch {
	case want.Good == nil && got.Good != nil:
		d = append(d, "Good: got an answer, want nil")
	case want.Good != nil && got.Good == nil:
		d = append(d, "Good: got nil, want an answer")
	case want.Good != nil:
		d = diffAnswer(d, "Good", want.Good, got.Good)
	}
	d = diffTime(d, "GoodAt", want.GoodAt, got.GoodAt)
	d = diffValue(d, "Failures", want.Failures, got.Failures)
	d = diffTime(d, "Expires", want.Expires, got.Expires)
	return strings.Join(d, "; ")
}

func diffAnswer(d []string, name string, want, got *backend.Answer) []string {
	d = diffValue(d, name+".URL", want.URL, got.URL)
	d = diffValue(d, name+".FinalURL", want.FinalURL, got.FinalURL)
	d = diffValue(d, name+".Redirects", want.Redirects, got.Redirects)
	d = diffValue(d, name+".Status", want.Status, got.Status)
	d = diffValue(d, name+".Outcome", want.Outcome, got.Outcome)
	d = diffValue(d, name+".Err", want.Err, got.Err)
	switch {
	case (want.Body == nil) != (got.Body == nil):
		d = append(d, fmt.Sprintf("%s.Body: got nil=%v, want nil=%v", name, got.Body == nil, want.Body == nil))
	case !bytes.Equal(want.Body, got.Body):
		d = append(d, fmt.Sprintf("%s.Body: got %d bytes %.40q…, want %d bytes %.40q…", name, len(got.Body), got.Body, len(want.Body), want.Body))
	}
	d = diffValue(d, name+".Truncated", want.Truncated, got.Truncated)
	d = diffValue(d, name+".NotModified", want.NotModified, got.NotModified)
	d = diffTime(d, name+".FetchedAt", want.FetchedAt, got.FetchedAt)
	d = diffTime(d, name+".Expires", want.Expires, got.Expires)
	d = diffValue(d, name+".RetryAfter", want.RetryAfter, got.RetryAfter)
	d = diffValue(d, name+".ETag", want.ETag, got.ETag)
	d = diffValue(d, name+".LastModified", want.LastModified, got.LastModified)
	return d
}

func diffValue[T comparable](d []string, name string, want, got T) []string {
	if want != got {
		d = append(d, fmt.Sprintf("%s: got %v, want %v", name, got, want))
	}
	return d
}

func diffTime(d []string, name string, want, got time.Time) []string {
	if want.IsZero() != got.IsZero() {
		return append(d, fmt.Sprintf("%s: got %v, want %v (zero must stay zero)", name, got, want))
	}
	if delta := got.Sub(want).Abs(); delta >= TimePrecision {
		d = append(d, fmt.Sprintf("%s: got %v, want %v (off by %v)", name, got, want, delta))
	}
	return d
}

// testRecordRoundTrip: every sample record loads back as stored.
func testRecordRoundTrip(t *testing.T, b backend.Backend) {
	for name, want := range Records(time.Now()) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			origin := "https://" + strings.ReplaceAll(strings.ReplaceAll(name, " ", "-"), ",", "") + ".example"
			mustStore(t, b, origin, mustLease(t, b, origin, time.Minute), want)
			got := mustLoad(t, b, origin)
			if diff := Diff(want, got); diff != "" {
				t.Fatalf("round trip: %s", diff)
			}
			// Loading twice gives the same again (a decoder that
			// consumes or shares state would not).
			if diff := Diff(want, mustLoad(t, b, origin)); diff != "" {
				t.Fatalf("second Load: %s", diff)
			}
		})
	}
}

// testStoreLeavesRecord: Store neither modifies the caller's record nor
// keeps sharing it: a caller reusing its buffers afterwards changes
// nothing stored.
func testStoreLeavesRecord(t *testing.T, b backend.Backend) {
	origin := "https://retain.example"
	rec := Records(time.Now())["good copy beside an unreachable answer"]
	want := cloneRecord(rec)
	mustStore(t, b, origin, mustLease(t, b, origin, time.Minute), rec)
	if diff := Diff(want, rec); diff != "" {
		t.Fatalf("Store modified the record passed to it: %s", diff)
	}
	// MemoryBackend keeps the pointer it was given, which the contract
	// allows (records are values callers must not modify after Store), so
	// only the record's own fields are checked, not aliasing.
	if diff := Diff(want, mustLoad(t, b, origin)); diff != "" {
		t.Fatalf("Load: %s", diff)
	}
}
