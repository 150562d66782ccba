package main

// This file is -page: fetch an allowed URL as a collector would, and say
// what its X-Robots-Tag headers and robots meta tags tell the agent, and
// the AI usage preferences and TDM reservation in force for it.

import (
	"errors"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext"
)

// pageResult is what -page found on one page.
type pageResult struct {
	Status     int    `json:"status"`
	Directives string `json:"directives"` // Directives.String()
	NoIndex    bool   `json:"noindex"`
	NoFollow   bool   `json:"nofollow"`
	// NofollowRule is the rule that said nofollow or none, as a
	// collector's Verdict.Rule reports it.
	NofollowRule string `json:"nofollow_rule,omitempty"`
	// UnavailableAfter is RFC 3339 in UTC; "" when not stated.
	UnavailableAfter string `json:"unavailable_after,omitempty"`
	// Usage is Page.Usage: the preferences in force by key, and
	// UsageStatements every mechanism's when some is overruled;
	// UsageText prints them. Refused is Page.Refused (-purpose).
	Usage           []usageResult `json:"usage,omitempty"`
	UsageStatements []usageResult `json:"usage_statements,omitempty"`
	UsageText       string        `json:"-"`
	Refused         bool          `json:"refused,omitempty"`
	// AbortedAtHeaders: a collector declaring the purposes aborts the
	// page at its headers, before its body (-purpose); the URL is then
	// reported disallowed, with the header and value that decided.
	AbortedAtHeaders bool `json:"aborted_at_headers,omitempty"`
	// TDMRep is Page.TDMRep, when a reservation is stated.
	TDMRep *tdmResult `json:"tdmrep,omitempty"`
}

// tdmResult is a page's TDM reservation.
type tdmResult struct {
	Reservation string `json:"reservation"` // "1" or "0"
	Policy      string `json:"policy,omitempty"`
	Source      string `json:"source"`
	Rule        int    `json:"rule,omitempty"` // the tdmrep.json rule's index
}

// pager fetches pages as a collector declaring the command's purposes
// would: through a Colly collector the checker's Extension is applied to,
// so the Extension's own hooks decide each page (a page whose headers
// refuse every declared purpose is aborted at its headers, as in a crawl)
// and keep each host's pace, the one the report announces. It is not safe
// for concurrent use.
type pager struct {
	col *colly.Collector
	ext *robotsext.Extension

	// What the latest Visit saw, written by the collector's callbacks
	// on the goroutine of Visit (the collector is not Async).
	refused *robotsext.Verdict // the hook refused the page
	head    *colly.Response    // its status and headers
	resp    *colly.Response    // its body's head, when it was read
}

// newPager returns a pager sending ua as the User-Agent, each request
// bounded by timeout, and the Extension applied to its collector with
// opts. The Extension does not back off from an overloaded host: the
// command reports the answer instead of waiting for a retry.
func newPager(ua string, timeout time.Duration, opts []robotsext.Option) *pager {
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	col := colly.NewCollector(colly.UserAgent(ua), colly.AllowURLRevisit(), colly.ParseHTTPErrorResponse(),
		colly.MaxBodySize(robotsext.MaxHeadScan))
	col.SetRequestTimeout(timeout)
	pg := &pager{col: col}
	pg.ext = robotsext.Apply(col, append(opts[:len(opts):len(opts)], robotsext.WithoutBackoff())...)
	pg.ext.OnBlocked(func(r *colly.Request, v robotsext.Verdict) {
		if r.IsAbort() { // not the report of a page fetched whose links are refused (its meta tags)
			pg.refused = &v
		}
	})
	col.OnRequest(func(r *colly.Request) { r.Headers.Set("Accept", "text/html,*/*;q=0.8") })
	col.OnResponseHeaders(func(resp *colly.Response) { pg.head = resp })
	col.OnResponse(func(resp *colly.Response) { pg.resp = resp })
	return pg
}

// fetch fetches raw as the collector would, keeping its host's pace, and
// reads with the Extension's Page its directives for the agent (the
// headers, and the head of at most robotsext.MaxHeadScan octets of an
// HTML body) and its usage preferences. refused is the collector's
// verdict when it refused the page (at its headers, with WithPurpose);
// the page then holds what its headers said.
func (pg *pager) fetch(raw string) (res *pageResult, refused *robotsext.Verdict, err error) {
	pg.refused, pg.head, pg.resp = nil, nil, nil
	verr := pg.col.Visit(raw)
	resp := pg.resp
	if resp == nil && pg.refused != nil && pg.head != nil {
		resp = &colly.Response{StatusCode: pg.head.StatusCode, Headers: pg.head.Headers, Request: pg.head.Request}
	}
	if resp == nil {
		switch {
		case pg.refused != nil:
			return nil, pg.refused, nil
		case verr != nil:
			return nil, nil, cause(verr)
		}
		return nil, nil, errors.New("no response")
	}
	p := pg.ext.Page(resp)
	d := p.Directives
	res = &pageResult{Status: resp.StatusCode, Directives: d.String(), NoIndex: d.NoIndex, NoFollow: d.NoFollow,
		NofollowRule: d.NofollowRule(), Refused: p.Refused, AbortedAtHeaders: pg.refused != nil}
	if !d.UnavailableAfter.IsZero() {
		res.UnavailableAfter = d.UnavailableAfter.Format(time.RFC3339)
	}
	if !p.Usage.IsZero() {
		res.Usage, res.UsageText = usageResults(p.Usage.Statements()), usageText(p.Usage)
		if all := p.Usage.All(); len(all) != len(res.Usage) {
			res.UsageStatements = usageResults(all)
		}
	}
	if t := p.TDMRep; t.Reservation != robotsext.TDMUnset {
		res.TDMRep = &tdmResult{Reservation: t.Reservation.String(), Policy: t.Policy, Source: t.Source.String(), Rule: t.Rule}
	}
	return res, pg.refused, nil
}
