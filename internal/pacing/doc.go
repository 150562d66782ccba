// Package pacing keeps the crawl polite towards each host: it spaces the
// requests to a host by its Crawl-delay, or by a default delay when its
// robots.txt states none (the pace), with a little jitter, keeps that
// spacing at the wire (the claim), shares both with a fleet through a
// Backend, pauses a host that asked for less (by its answers' status,
// Retry-After or RateLimit fields) and brings it back step by step (the
// back-off), and, when asked to, follows the host's response time (the
// adaptive pace).
//
// It knows hosts, opaque request tokens, URLs, durations and a clock, not
// Colly: the root package turns Colly's hooks into calls here. It may
// import the standard library, the backend contract
// (github.com/robotsext/robotsext/backend) and the internal packages
// pause and redact; it may not import Colly or the root package, which
// imports it (imports_test.go enforces that rule).
//
// Its words: the "pace" or "delay" is the Crawl-delay spacing of starts;
// a "claim" marks the one request to a host between the wire and its
// response headers, in this process or fleet-wide; a "pause" is a host's
// back-off. ("Hold" is the root's word for requests kept during a
// robots.txt outage, and is not used here.)
package pacing
