package robotsext

// This file enforces AI usage preferences for a crawler that declares its
// purposes (WithPurpose). Every mechanism a site may use states its own
// preference, and they combine to the most restrictive (package
// internal/signals). A URL is decided three times, each with what is known
// by then:
//
//   - before it is fetched: robots.txt's Content-Usage and Content-Signal
//     lines, and the origin's tdmrep.json (internal/lifecycle's TDMRep);
//   - at its response headers: those, with the Content-Usage,
//     Content-Signal and tdm-reservation headers and noai (or, on an
//     image, noimageai) in X-Robots-Tag; a refusal aborts the page before
//     its body is read;
//   - once its body is read: those, with its tdm-reservation and robots
//     meta tags; a refusal is reported and the page's links are refused,
//     for the page's sake (nofollow.go).
//
// Without WithPurpose none of it runs, and the OnRequest hook does no
// extra work.

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext/internal/directives"
	"github.com/robotsext/robotsext/internal/lifecycle"
	"github.com/robotsext/robotsext/internal/robotstxt"
	"github.com/robotsext/robotsext/internal/signals"
	"github.com/robotsext/robotsext/internal/tdmrep"
)

// WithPurpose declares what the crawler uses content for, such as
// PurposeTrainAI, and makes the Extension obey what the sites say about
// that use. Each of these states its own preference for a URL, and the one
// in force is the most restrictive:
//
//   - robots.txt's Content-Usage lines (draft-ietf-aipref-attach) and
//     Content-Signal lines (Cloudflare's Content Signals);
//   - the origin's /.well-known/tdmrep.json (TDMRep), read once per origin
//     and cached like robots.txt, only with WithPurpose: tdm-reservation 1
//     states train-ai=n, 0 train-ai=y;
//   - the page's Content-Usage and Content-Signal response headers, and
//     its tdm-reservation header and meta tag;
//   - noai in the page's X-Robots-Tag or robots meta tags (train-ai=n),
//     and noimageai on an image (see Directives.NoImageAI).
//
// A URL is refused before it is fetched when robots.txt or tdmrep.json
// says "n" for every declared purpose. A page whose headers make it so is
// aborted at its headers: its body is not downloaded, OnResponse and
// OnHTML do not see it and its links are not followed. A page whose meta
// tags make it so has been read by then: its links are refused, for the
// page's sake, and Page(resp).Refused tells OnResponse and OnHTML callbacks
// to skip it. A purpose without a statement ("no statement") never
// refuses. Each refusal reaches OnBlocked with ReasonUsage, Rule naming
// the statement and where it was read ("tdmrep.json rule 0: /archive/
// tdm-reservation 1", "Content-Signal: ai-train=no", "meta robots: noai").
//
// Without WithPurpose preferences are not enforced, tdmrep.json is never
// fetched, and the request hook does no extra work; Check still reports
// robots.txt's preferences in Verdict.Usage, and Page those of the page.
// Empty and repeated purposes are dropped.
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
	if !robotsUsage(en) {
		return Usage{}
	}
	p := en.Policy
	sel := en.Sel
	if token := e.token(); token != en.SelToken {
		sel = p.Select(token)
	}
	return Usage{p.UsageFor(sel, path)}
}

// robotsUsage reports whether en's robots.txt may state preferences: it
// was had, is applied, and has usage lines.
func robotsUsage(en *lifecycle.Entry) bool {
	return en != nil && !en.Override && en.Outcome == OutcomeOK && en.Policy.HasUsage()
}

// usageVerdict refines v, a Verdict allowing u, with the preferences in
// force before fetching: robots.txt's and, with WithPurpose, the origin's
// tdmrep.json (fetched when not cached, unless the host is overridden).
// With WithPurpose v becomes a refusal when they say "n" for every
// purpose. fetched reports that tdmrep.json was not cached fresh, so
// that the call may have waited for it. The error is ctx's, when it ended
// while tdmrep.json was fetched.
func (e *Extension) usageVerdict(ctx context.Context, v *Verdict, en *lifecycle.Entry, u *url.URL) (fetched bool, err error) {
	var file *tdmrep.File
	if e.tdm != nil && !en.Override {
		f, hit, err := e.tdm.FileHit(ctx, en.Origin, en.Expires)
		if err != nil {
			return !hit, err
		}
		file, fetched = f, !hit
	}
	if !robotsUsage(en) && file.Len() == 0 {
		return fetched, nil // nothing to look up: the path is not even built
	}
	if u.Opaque == "" && u.RawQuery == "" && !u.ForceQuery {
		if path, ok := robotstxt.PlainPath(u); ok {
			e.usagePath(v, en, file, path)
			return fetched, nil
		}
	}
	// The path is built in a stack buffer, as decideBuilt does: nothing
	// keeps it.
	var buf [robotstxt.PathBufSize]byte
	e.usagePath(v, en, file, bytesString(robotstxt.AppendPath(buf[:0], u)))
	return fetched, nil
}

// usagePath is usageVerdict once the request path is known.
func (e *Extension) usagePath(v *Verdict, en *lifecycle.Entry, file *tdmrep.File, path string) {
	usage := e.usageOf(en, path)
	rule, ok := file.Lookup(path)
	if ok {
		if s, stated := signals.TDMRep(rule.Declaration()); stated {
			usage = usage.with(s)
		}
	}
	if usage.IsZero() {
		return
	}
	v.Usage = usage
	if s, no := usage.refuses(e.cfg.purposes); no {
		r := refusal{en: en, file: rule}
		*v = Verdict{Allowed: false, Reason: ReasonUsage, Usage: usage}
		v.Line, v.Rule = r.name(s)
	}
}

// refusal is what names the statement that refused a URL or page, as
// Verdict.Line and Rule show it.
type refusal struct {
	en   *lifecycle.Entry // the robots.txt entry, for its lines
	file tdmrep.Rule      // the tdmrep.json rule that matched
	h    http.Header      // the response's headers; nil before fetching
	dirs Directives       // the page's directives, for noai and noimageai
}

// name returns the line and rule of the refusing statement s: a robots.txt
// line and its value, the tdmrep.json rule, or the header or meta tag as
// read.
func (r refusal) name(s UsageStatement) (line int, rule string) {
	switch s.Source {
	case SourceContentUsage, SourceContentSignal:
		if r.en != nil {
			return s.Line, r.en.Policy.UsageLine(s.Line)
		}
		return s.Line, ""
	case SourceTDMRepFile:
		return 0, "tdmrep.json rule " + strconv.Itoa(s.Line) + ": " + r.file.Location + " " + tdmrep.NameReservation + " " + r.file.Reservation.String()
	case SourceContentUsageHeader:
		return 0, "Content-Usage: " + strings.Join(r.h.Values("Content-Usage"), ", ")
	case SourceContentSignalHeader:
		return 0, "Content-Signal: " + strings.Join(r.h.Values("Content-Signal"), ", ")
	case SourceTDMRepHeader:
		return 0, tdmrep.NameReservation + ": " + strings.Join(r.h.Values(tdmrep.NameReservation), ", ")
	case SourceTDMRepMeta:
		return 0, "meta " + tdmrep.NameReservation + ": 1"
	case SourceXRobotsTag:
		return 0, directives.HeaderName + ": " + r.aiWord(FromXRobotsTag)
	case SourceMetaRobots:
		return 0, "meta robots: " + r.aiWord(FromMeta)
	}
	return 0, ""
}

// aiWord returns the directive that states train-ai=n from src: noai, or
// noimageai.
func (r refusal) aiWord(src DirectiveSource) string {
	if r.dirs.From(DirectiveNoAI)&src != 0 {
		return "noai"
	}
	return "noimageai"
}

// usageHeaderNames are the response headers that may state a preference;
// a response with none of them is not looked at. They are in the
// canonical form net/http keeps header names in.
var usageHeaderNames = [...]string{"Content-Usage", "Content-Signal", "Tdm-Reservation", "X-Robots-Tag"}

// hasUsageHeaders reports whether h holds a header of usageHeaderNames.
func hasUsageHeaders(h http.Header) bool {
	for _, k := range usageHeaderNames {
		if len(h[k]) > 0 {
			return true
		}
	}
	return false
}

// pageRead is what one response says about its use besides robots.txt
// and tdmrep.json: its headers, and once its body is read its head.
type pageRead struct {
	h     http.Header
	dirs  Directives         // the headers' X-Robots-Tag, and the meta tags once read
	meta  tdmrep.Declaration // the tdm-reservation and tdm-policy meta tags
	image bool               // the response is an image (image/*)
	// imageOf is the page whose link this image is, when that page said
	// noimageai (to the crawler): the image is reserved for its sake.
	imageOf *pageMark
}

// usageFor returns every statement in force for the page at u, the
// robots.txt entry its preferences were read from and the tdmrep.json
// rule that matched it, and the TDMRep declaration in force (the file,
// the header and the meta tags laid over one another, as the report
// orders them). file is the origin's tdmrep.json, or nil.
func (e *Extension) usageFor(en *lifecycle.Entry, file *tdmrep.File, u *url.URL, pr *pageRead) (Usage, tdmrep.Rule, tdmrep.Declaration) {
	path := robotstxt.PathOf(u)
	usage := e.usageOf(en, path)
	var d tdmrep.Declaration
	rule, ok := file.Lookup(path)
	if ok {
		d = rule.Declaration()
	}
	h := pr.h
	var stmts []signals.Statement
	if h != nil {
		stmts = append(stmts, signals.ContentUsageHeader(h.Values("Content-Usage"))...)
		stmts = append(stmts, signals.ContentSignalHeader(h.Values("Content-Signal"))...)
		d = tdmrep.FromHeader(h.Values(tdmrep.NameReservation), h.Values(tdmrep.NamePolicy)).Over(d)
	}
	d = pr.meta.Over(d)
	if s, stated := signals.TDMRep(d); stated {
		stmts = append(stmts, s)
	}
	for _, src := range [...]struct {
		from DirectiveSource
		sig  signals.Source
	}{{FromXRobotsTag, signals.SourceXRobotsTag}, {FromMeta, signals.SourceMetaRobots}} {
		switch {
		case pr.dirs.From(DirectiveNoAI)&src.from != 0:
			stmts = append(stmts, signals.NoAI(src.sig))
		case pr.dirs.From(DirectiveNoImageAI)&src.from != 0 && pr.image:
			stmts = append(stmts, signals.NoAI(src.sig))
		}
	}
	if m := pr.imageOf; m != nil {
		for _, src := range [...]struct {
			from DirectiveSource
			sig  signals.Source
		}{{FromXRobotsTag, signals.SourceXRobotsTag}, {FromMeta, signals.SourceMetaRobots}} {
			if m.dirs.From(DirectiveNoImageAI)&src.from != 0 {
				stmts = append(stmts, signals.NoAI(src.sig))
			}
		}
	}
	return usage.with(stmts...), rule, d
}

// pageEntry returns the robots.txt entry in force for u, or nil when it
// cannot be had.
func (e *Extension) pageEntry(u *url.URL) *lifecycle.Entry {
	o, err := originOf(u)
	if err != nil {
		return nil
	}
	en, err := e.entryFor(contextOf(e.c), o)
	if err != nil {
		return nil
	}
	return en
}

// cachedTDMRep returns the tdmrep.json cached for u's origin, however old,
// without fetching it: nil without WithPurpose, for an overridden host, or
// when none is cached.
func (e *Extension) cachedTDMRep(u *url.URL) *tdmrep.File {
	if e.tdm == nil {
		return nil
	}
	o, err := originOf(u)
	if err != nil || e.cfg.overridden(o) {
		return nil
	}
	return e.tdm.Cached(o)
}

// noImageAIPage returns the mark of the page whose link r is, when that
// page said noimageai to the crawler and the response, whose headers are
// h, is an image; nil otherwise.
func (e *Extension) noImageAIPage(r *colly.Request, h http.Header) *pageMark {
	if e.marks.Load() == 0 {
		return nil
	}
	m := markOf(r.Ctx)
	if m == nil || m.page == r || r.Depth != m.depth+1 || !m.dirs.NoImageAI || !signals.IsImage(h.Get("Content-Type")) {
		return nil
	}
	return m
}

// usageHeaders is the part of the OnResponseHeaders hook that runs with
// WithPurpose: a page whose preferences, read up to its headers, say "n"
// for every declared purpose is aborted before its body is read (in
// shadow mode only reported). An image refused because the page it was
// linked from said noimageai is refused for that page's sake: it stays
// reachable from other pages (visits.go).
func (e *Extension) usageHeaders(c *colly.Collector, resp *colly.Response) {
	r := resp.Request
	if r == nil || r.IsAbort() || r.URL == nil || resp.Headers == nil {
		return
	}
	h := *resp.Headers
	img := e.noImageAIPage(r, h)
	if img == nil && !hasUsageHeaders(h) {
		return
	}
	pr := &pageRead{h: h, imageOf: img, image: signals.IsImage(h.Get("Content-Type"))}
	if len(h[directives.HeaderName]) > 0 {
		pr.dirs = ParseXRobotsTag(e.token(), h[directives.HeaderName]...)
	}
	en := e.pageEntry(r.URL)
	ctx := contextOf(c)
	var file *tdmrep.File
	if o, err := originOf(r.URL); err == nil && e.tdm != nil && !e.cfg.overridden(o) {
		var fresh time.Time
		if en != nil {
			fresh = en.Expires
		}
		f, err := e.tdm.File(ctx, o, fresh)
		if err != nil {
			return // the context ended: Colly fails the request
		}
		file = f
	}
	usage, rule, _ := e.usageFor(en, file, r.URL, pr)
	s, no := usage.refuses(e.cfg.purposes)
	if !no {
		return
	}
	v := Verdict{Allowed: false, Reason: ReasonUsage, Usage: usage}
	ref := refusal{en: en, file: rule, h: h, dirs: pr.dirs}
	if img != nil && (s.Source == SourceXRobotsTag || s.Source == SourceMetaRobots) && !pr.dirs.NoAI && !pr.dirs.NoImageAI {
		ref.dirs, v.Page = img.dirs, img.url
	}
	v.Line, v.Rule = ref.name(s)
	if !e.cfg.shadow {
		r.Abort()
		e.stats.usageWithheld.Add(1)
		if v.Page != "" {
			e.forgetVisit(c, r)
		}
	}
	e.blocked(ctx, r, v)
}

// usageBody is the part of the OnResponse hook that runs with WithPurpose,
// once the page's head has been read into d and meta: when its meta tags
// make its preferences say "n" for every declared purpose, it reports
// the page (the refusal at the headers has not, or the page would not be
// here) and returns the rule its links are refused with; "" otherwise.
func (e *Extension) usageBody(resp *colly.Response, d Directives, meta tdmrep.Declaration) string {
	metaAI := d.From(DirectiveNoAI)&FromMeta != 0
	if meta.Reservation == tdmrep.Unset && !metaAI {
		return ""
	}
	r := resp.Request
	en := e.pageEntry(r.URL)
	file := e.cachedTDMRep(r.URL)
	pr := &pageRead{h: *resp.Headers, dirs: d, meta: meta}
	usage, rule, _ := e.usageFor(en, file, r.URL, pr)
	s, no := usage.refuses(e.cfg.purposes)
	if !no {
		return ""
	}
	_, name := refusal{en: en, file: rule, h: pr.h, dirs: d}.name(s)
	head := &pageRead{h: pr.h}
	if len(pr.h[directives.HeaderName]) > 0 {
		head.dirs = ParseXRobotsTag(e.token(), pr.h[directives.HeaderName]...)
	}
	if before, _, _ := e.usageFor(en, file, r.URL, head); before != usage {
		if _, no := before.refuses(e.cfg.purposes); no {
			// The headers alone refuse the page: it was reported at
			// its headers, and shadow mode let it through.
			return name
		}
	} else {
		return name
	}
	v := Verdict{Allowed: false, Reason: ReasonUsage, Rule: name, Usage: usage}
	if !e.cfg.shadow {
		e.stats.usageMetaRefused.Add(1)
	}
	e.blocked(contextOf(e.c), r, v)
	return name
}

// pageUsage returns what a fetched page states about its use: its usage
// preferences (robots.txt's for its URL, the cached tdmrep.json's, its
// headers' and its meta tags', each mechanism's statement kept) and its
// TDMRep declaration.
func (e *Extension) pageUsage(resp *colly.Response, d Directives, meta tdmrep.Declaration) (Usage, tdmrep.Declaration) {
	if resp == nil || resp.Request == nil || resp.Request.URL == nil {
		return Usage{}, tdmrep.Declaration{}
	}
	u := resp.Request.URL
	pr := &pageRead{dirs: d, meta: meta}
	if resp.Headers != nil {
		pr.h = *resp.Headers
		pr.image = signals.IsImage(pr.h.Get("Content-Type"))
		if len(e.cfg.purposes) > 0 {
			pr.imageOf = e.noImageAIPage(resp.Request, pr.h)
		}
	}
	usage, _, decl := e.usageFor(e.pageEntry(u), e.cachedTDMRep(u), u, pr)
	return usage, decl
}
