package robotsext

// This file refuses the links of pages that ask not to be followed
// (nofollow or none for the crawler, WithNofollow), of pages whose meta
// tags make their usage preferences refuse the crawl (WithPurpose), and,
// with WithRelNofollow, single links marked rel="nofollow".
//
// A request made by e.Request.Visit (Post, PostRaw, PostMultipart) carries
// its page's *colly.Context, which Colly also gives to the page's
// siblings. So the Extension ties a page to its links by giving the page
// a Context of its own: when a page says nofollow, its request's Context
// is replaced, before any OnHTML callback runs, by a copy holding a mark
// (the page, its depth, the rule). A request carrying the mark one level
// deeper than the page is one of its links; the page's own retries
// (Retry, Do) keep its depth and pass.

import (
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext/internal/directives"
	"github.com/robotsext/robotsext/internal/tdmrep"
)

// WithNofollow turns the refusal of a nofollow page's links on (the
// default) or off. When on, requests made from a page whose X-Robots-Tag
// or robots meta tags say nofollow or none to the crawler (e.Request.Visit,
// Post, PostRaw, PostMultipart in its OnHTML, OnResponse or OnScraped
// callbacks) are refused before they are fetched and reach OnBlocked with
// ReasonNofollow, the page in Verdict.Page and the rule in Verdict.Rule.
// WithShadowMode reports them without refusing; pages on WithOverride
// hosts, and links to them, are exempt. Requests not made through the
// page's request (c.Visit of a URL read from the page) cannot be tied to
// it and are not refused. Off, the directives are still read for Page and
// Stats.
//
// A link refused for its page's sake stays reachable: Colly marks a URL
// visited before the OnRequest hook refuses it, so the Extension makes the
// collector's storage forget that mark (see Attach), and the same URL found
// on a page that allows following, or visited with c.Visit, is fetched,
// once. Without that, it would never be. URLs refused for themselves (by
// robots.txt, or by their own usage preferences) stay marked.
func WithNofollow(enforce bool) Option {
	return func(c *config) { c.nofollowOff = !enforce }
}

// WithRelNofollow also refuses links marked rel="nofollow": a request made
// from a page by e.Request.Visit (or Post…) whose URL the page links to
// only with rel="nofollow" (an <a> or <area> whose rel attribute holds the
// word nofollow) is refused with ReasonRelNofollow. A URL the page also
// links to without rel="nofollow" is followed. The Extension finds the
// links in an OnHTML callback of its own, so it sees them only on HTML
// pages, when the collector parses them (it has OnHTML callbacks), and
// before the callbacks registered after Apply: register yours after
// Apply. Most search engines take rel="nofollow" as a hint, not a rule,
// so it is off by default.
func WithRelNofollow() Option {
	return func(c *config) { c.relNofollow = true }
}

// markKey is the colly.Context key of a page's mark.
const markKey = "robotsext.page"

// pageMark ties the requests made from one page to it. It is put in a
// Context of the page's own and read by the OnRequest hook of its links.
type pageMark struct {
	page  *colly.Request     // the page's request; its retries are other requests
	url   string             // the page's URL, for Verdict.Page
	depth int                // the page's depth; its links are one deeper
	dirs  Directives         // what the page said; written before the mark is published
	meta  tdmrep.Declaration // the page's TDMRep meta tags, read with WithPurpose
	// nofollow: the links are refused (the page said nofollow or none).
	nofollow bool
	// usage, when not "", is the rule of the page's own usage
	// preferences that refuse every declared purpose: the links are
	// refused with ReasonUsage (usagehook.go).
	usage string
	// rel holds the URLs the page links to only with rel="nofollow",
	// published once complete (WithRelNofollow); nil: none.
	rel atomic.Pointer[map[string]struct{}]
}

// markOf returns the mark in ctx, or nil.
func markOf(ctx *colly.Context) *pageMark {
	if ctx == nil {
		return nil
	}
	m, _ := ctx.GetAny(markKey).(*pageMark)
	return m
}

// onResponse is the OnResponse hook: it reads the page's directives (and,
// with WithPurpose, its TDMRep meta tags, in the same scan of its head),
// counts a page that has some, and marks a page whose links are to be
// refused, or, with WithPurpose, whose images are reserved (noimageai).
func (e *Extension) onResponse(resp *colly.Response) {
	if resp.Request == nil || resp.Headers == nil {
		return
	}
	purpose := len(e.cfg.purposes) > 0
	var meta tdmrep.Declaration
	var d Directives
	if purpose {
		d = directives.Read(e.token(), *resp.Headers, resp.Body, &meta)
	} else {
		d = ReadDirectives(e.token(), *resp.Headers, resp.Body)
	}
	if !d.IsZero() {
		e.stats.directivePages.Add(1)
	}
	if d.IsZero() && meta == (tdmrep.Declaration{}) {
		return
	}
	nofollow := d.NoFollow && !e.cfg.nofollowOff && !e.overriddenURL(resp.Request.URL)
	var usage string
	if purpose {
		usage = e.usageBody(resp, d, meta)
	}
	if nofollow || usage != "" || purpose && d.NoImageAI {
		m := e.mark(resp, d, nofollow)
		m.meta, m.usage = meta, usage
	}
}

// mark gives resp's page a Context of its own holding a new mark, and
// returns the mark, whose fields the caller may still set before the
// page's callbacks run. The Context is copied from the page's with
// ForEach (one read lock of the shared Context; Context.Clone takes it
// twice, which can deadlock against a writer).
func (e *Extension) mark(resp *colly.Response, d Directives, nofollow bool) *pageMark {
	r := resp.Request
	ctx := colly.NewContext()
	if r.Ctx != nil {
		r.Ctx.ForEach(func(k string, v any) any {
			if k != markKey {
				ctx.Put(k, v)
			}
			return nil
		})
	}
	m := &pageMark{page: r, url: r.URL.String(), depth: r.Depth, dirs: d, nofollow: nofollow}
	ctx.Put(markKey, m)
	r.Ctx = ctx
	resp.Ctx = ctx
	e.marks.Add(1)
	return m
}

// onLinks is the OnHTML hook of WithRelNofollow: it collects the URLs the
// page links to only with rel="nofollow" and marks the page with them.
func (e *Extension) onLinks(h *colly.HTMLElement) {
	if h.Request == nil || h.DOM == nil || e.overriddenURL(h.Request.URL) {
		return
	}
	var only, followed map[string]struct{}
	h.ForEach("a[href], area[href]", func(_ int, a *colly.HTMLElement) {
		abs := h.Request.AbsoluteURL(a.Attr("href"))
		if abs == "" {
			return
		}
		u, err := url.Parse(abs)
		if err != nil {
			return
		}
		key := u.String() // as the OnRequest hook sees the link's URL
		if hasWord(a.Attr("rel"), "nofollow") {
			if only == nil {
				only = map[string]struct{}{}
			}
			only[key] = struct{}{}
			return
		}
		if followed == nil {
			followed = map[string]struct{}{}
		}
		followed[key] = struct{}{}
	})
	for k := range followed {
		delete(only, k)
	}
	if len(only) == 0 {
		return
	}
	m := markOf(h.Request.Ctx)
	if m == nil || m.page != h.Request {
		resp := h.Response
		if resp == nil || resp.Request != h.Request {
			return
		}
		m = e.mark(resp, e.Page(resp).Directives, false)
	}
	m.rel.Store(&only)
}

// hasWord reports whether the space-separated list s holds w, ignoring
// case.
func hasWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if strings.EqualFold(f, w) {
			return true
		}
	}
	return false
}

// overriddenURL reports whether WithOverride covers u's host.
func (e *Extension) overriddenURL(u *url.URL) bool {
	if len(e.cfg.overrides) == 0 || u == nil {
		return false
	}
	o, err := originOf(u)
	return err == nil && e.cfg.overridden(o)
}

// refuseLink refuses r, reports it and returns true when it is a link of
// a page whose mark refuses it; in shadow mode it reports it and returns
// false. The hook calls it only once some page was marked.
func (e *Extension) refuseLink(c *colly.Collector, r *colly.Request) bool {
	m := markOf(r.Ctx)
	if m == nil || m.page == r || r.Depth != m.depth+1 {
		return false
	}
	var v Verdict
	switch {
	case m.nofollow:
		v = Verdict{Reason: ReasonNofollow, Rule: m.dirs.NofollowRule(), Page: m.url}
	case m.usage != "":
		v = Verdict{Reason: ReasonUsage, Rule: m.usage, Page: m.url}
	default:
		rel := m.rel.Load()
		if rel == nil {
			return false
		}
		if _, ok := (*rel)[r.URL.String()]; !ok {
			return false
		}
		v = Verdict{Reason: ReasonRelNofollow, Rule: `rel="nofollow"`, Page: m.url}
	}
	if e.overriddenURL(r.URL) {
		return false
	}
	e.stats.decided(v)
	e.stats.linksRefused.Add(1)
	if !e.cfg.shadow {
		r.Abort()
		e.forgetVisit(c, r) // visits.go: found on a page that allows following, or visited, it is fetched
	}
	e.blocked(contextOf(c), r, v)
	return !e.cfg.shadow
}
