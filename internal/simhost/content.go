package simhost

// This file writes the bodies: pages of 5–20 KB that link within their
// host and across hosts, and the ~400 KB robots.txt.

import (
	"fmt"
	"strings"
)

// page is host i's page p of pages (of n hosts): links to the host's next
// two pages and to page 0 of two other hosts, padded to 5–20 KB by (i, p).
func page(i, p, n, pages int) []byte {
	var b strings.Builder
	size := 5<<10 + int(mix(i*31+p)%(15<<10))
	b.Grow(size + 512)
	fmt.Fprintf(&b, "<html><head><title>%s page %d</title></head><body>\n", Name(i), p)
	for _, q := range []int{p + 1, p + 2} {
		if q < pages {
			fmt.Fprintf(&b, "<a href=\"/p/%d\">next</a>\n", q)
		}
	}
	for _, k := range []uint64{7, 13} {
		fmt.Fprintf(&b, "<a href=\"http://%s/p/0\">other</a>\n", Name(int(mix(i*int(k)+p)%uint64(n))))
	}
	b.WriteString("<p>")
	for b.Len() < size {
		b.WriteString("lorem ipsum dolor sit amet consectetur adipiscing elit ")
	}
	b.WriteString("</p></body></html>\n")
	return []byte(b.String())
}

// bigRobots is a ~400 KB robots.txt: a group for every crawler that
// disallows thousands of paths a crawl of /p/ never asks for, no delay.
func bigRobots() []byte {
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	for k := 0; b.Len() < 400<<10; k++ {
		fmt.Fprintf(&b, "Disallow: /archive/%d/*/section-%d$\nAllow: /archive/%d/public/\n", k, k%97, k)
	}
	return []byte(b.String())
}
