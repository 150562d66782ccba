package robotsext

// This file gives OnResponse and OnHTML callbacks what the page they
// handle says to the crawler: its directives and its usage preferences.

import (
	"net/url"

	"github.com/gocolly/colly/v2"
)

// Page is what the Extension knows about one fetched page: its URL, what
// its X-Robots-Tag headers and robots meta tags say to the crawler, and the
// AI usage preferences in force for it.
// It is a plain value; its zero value is a page that said nothing.
type Page struct {
	// URL is the page's URL (after redirects), as Colly fetched it.
	URL *url.URL
	// Directives is what the page's X-Robots-Tag headers and, for an
	// HTML page, the robots meta tags of its head say to the crawler's
	// product token.
	Directives Directives
	// Usage is the AI usage preferences in force for the page: robots.txt's
	// Content-Usage and Content-Signal lines for its URL, merged with its
	// Content-Usage response header (the most restrictive wins), each
	// statement with where it came from. Read it to sort content by use
	// (keep a page out of a training set, say) whether or not WithPurpose
	// refused anything.
	Usage Usage
}

// Page returns what resp's page says to the crawler, for OnResponse,
// OnHTML (e.Response) and OnScraped callbacks deciding what to store:
//
//	c.OnResponse(func(r *colly.Response) {
//		if p := ext.Page(r); p.Directives.NoIndex {
//			return // the page asks not to be indexed: do not store it
//		}
//		store(r)
//	})
//
// The directives are read for the product token the robots.txt groups
// are matched with (see WithUserAgent); the usage preferences come from
// the origin's cached robots.txt and the response's headers. Page works with any option; it
// reads the response again unless the Extension already read it to refuse
// the page's links, which costs a header lookup and a scan of the head.
// Page(nil) returns the zero Page.
func (e *Extension) Page(resp *colly.Response) Page {
	if resp == nil || resp.Request == nil {
		return Page{}
	}
	p := Page{URL: resp.Request.URL, Usage: e.pageUsage(resp)}
	if m := markOf(resp.Request.Ctx); m != nil && m.page == resp.Request {
		p.Directives = m.dirs
		return p
	}
	if resp.Headers != nil {
		p.Directives = ReadDirectives(e.token(), *resp.Headers, resp.Body)
	} else if isHTML("", resp.Body) {
		p.Directives = ParseMetaRobots(e.token(), resp.Body)
	}
	return p
}
