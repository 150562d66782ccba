// Package simhost simulates many web hosts on one loopback server, for
// benchmarks and stress tests of whole crawls: host names are routed to
// the server by a DialContext that ignores the address it is given, the
// server answers each host's robots.txt and pages by a Spec (a mix of
// robots.txt outcomes, stated delays, slow and hanging files, pages of
// 5–20 KB linking within and across hosts), and it records what a
// server would see: each host's robots.txt fetches and the arrival of
// its pages, from which the gaps between them follow.
//
// It touches loopback only, and every wait it makes ends when the
// request's context or the server ends. It imports the standard library
// only (not Colly), so that other modules' tests may use it too.
package simhost
