package robotsext

// This file enforces AI usage preferences for a crawler that declares its
// purposes (WithPurpose): the refusal before fetching, from robots.txt, and
// the one at the response headers, from the page's Content-Usage header.
// Without WithPurpose none of it runs.

import (
	"net/url"
	"slices"
	"strings"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext/internal/lifecycle"
	"github.com/robotsext/robotsext/internal/robotstxt"
	"github.com/robotsext/robotsext/internal/signals"
)

// WithPurpose declares what the crawler uses content for, such as
// PurposeTrainAI. The sites' AI usage preferences (Content-Usage and
// Content-Signal lines of robots.txt, the Content-Usage response header)
// are then enforced: a URL is refused before it is fetched when robots.txt
// says "n" for every declared purpose, and a page whose Content-Usage
// header, merged with robots.txt (most restrictive), says "n" for every
// declared purpose is aborted at its headers, so that its body is not
// downloaded, OnResponse and OnHTML do not see it and its links are not
// followed. A purpose without a statement ("no statement") never refuses.
// Each refusal reaches OnBlocked with ReasonUsage.
//
// Without WithPurpose preferences are not enforced and cost the request
// hook nothing; Check still reports them in Verdict.Usage. Empty and
// repeated purposes are dropped.
func WithPurpose(purposes ...Purpose) Option {
	return func(c *config) {
		for _, p := range purposes {
			if p != "" && !slices.Contains(c.purposes, p) {
				c.purposes = append(c.purposes, p)
			}
		}
	}
}

// usageOf returns the preferences robots.txt states for path (in the form
// robotstxt.RequestPath returns) from the entry in force: none unless its
// robots.txt was had and is applied.
func (e *Extension) usageOf(en *lifecycle.Entry, path string) Usage {
	p := en.Policy
	if en.Override || en.Outcome != OutcomeOK || !p.HasUsage() {
		return Usage{}
	}
	sel := en.Sel
	if token := e.token(); token != en.SelToken {
		sel = p.Select(token)
	}
	return Usage{p.UsageFor(sel, path)}
}

// usageVerdict refines v, a Verdict allowing u, with the preferences in
// force: with WithPurpose, a refusal when they say "n" for every purpose.
func (e *Extension) usageVerdict(v *Verdict, en *lifecycle.Entry, u *url.URL) {
	usage := e.usageOf(en, robotstxt.PathOf(u))
	if usage.IsZero() {
		return
	}
	v.Usage = usage
	if s, no := usage.refuses(e.cfg.purposes); no {
		*v = Verdict{Allowed: false, Reason: ReasonUsage, Line: s.Line, Rule: en.Policy.UsageLine(s.Line), Usage: usage}
	}
}

// pageUsage returns the preferences in force for a fetched page: those
// robots.txt states for its URL, merged key by key with its Content-Usage
// response header (the most restrictive wins; robots.txt on a tie).
func (e *Extension) pageUsage(resp *colly.Response) Usage {
	var robots Usage
	if resp == nil || resp.Request == nil || resp.Request.URL == nil {
		return robots
	}
	if o, err := originOf(resp.Request.URL); err == nil {
		if en, err := e.entryFor(contextOf(e.c), o); err == nil {
			robots = e.usageOf(en, robotstxt.PathOf(resp.Request.URL))
		}
	}
	if resp.Headers == nil {
		return robots
	}
	return robots.with(signals.ContentUsageHeader(resp.Headers.Values("Content-Usage"))...)
}

// usageHeaders is the part of the OnResponseHeaders hook that runs with
// WithPurpose: a page whose preferences say "n" for every declared purpose
// is aborted before its body is read (in shadow mode only reported).
func (e *Extension) usageHeaders(resp *colly.Response) {
	if resp.Request == nil || resp.Request.IsAbort() || resp.Headers == nil || len(resp.Headers.Values("Content-Usage")) == 0 {
		return
	}
	usage := e.pageUsage(resp)
	if _, no := usage.refuses(e.cfg.purposes); !no {
		return
	}
	fields := resp.Headers.Values("Content-Usage")
	v := Verdict{Allowed: false, Reason: ReasonUsage, Rule: strings.Join(fields, ", "), Usage: usage}
	if !e.cfg.shadow {
		resp.Request.Abort()
		e.stats.usageWithheld.Add(1)
	}
	e.blocked(contextOf(e.c), resp.Request, v)
}
