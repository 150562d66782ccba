package robotsext

// This file gives OnResponse and OnHTML callbacks what the page they
// handle says to the crawler: its directives, its usage preferences and
// its TDM reservation.

import (
	"net/url"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext/internal/directives"
	"github.com/robotsext/robotsext/internal/tdmrep"
)

// Page is what the Extension knows about one fetched page: its URL, what
// its X-Robots-Tag headers and robots meta tags say to the crawler, the
// AI usage preferences in force for it, and its TDM reservation.
// It is a plain value; its zero value is a page that said nothing.
type Page struct {
	// URL is the page's URL (after redirects), as Colly fetched it.
	URL *url.URL
	// Directives is what the page's X-Robots-Tag headers and, for an
	// HTML page, the robots meta tags of its head say to the crawler's
	// product token.
	Directives Directives
	// Usage is the AI usage preferences in force for the page, each
	// mechanism's statement kept (Usage.All) and the most restrictive in
	// force (Usage.For): robots.txt's Content-Usage and Content-Signal
	// lines for its URL, with WithPurpose the origin's cached
	// tdmrep.json, its Content-Usage and Content-Signal headers, its
	// TDMRep reservation (see TDMRep) and noai (or noimageai on an
	// image) in its directives. Read it to sort content by use (keep a
	// page out of a training set, say) whether or not WithPurpose
	// refused anything.
	Usage Usage
	// TDMRep is what the TDM Reservation Protocol says about the page.
	TDMRep TDMRep
	// Refused reports that Usage says "n" for every purpose declared
	// with WithPurpose. A page whose headers say so never reaches
	// OnResponse; one whose meta tags say so (tdm-reservation, noai in
	// a robots meta tag) does, as its body had to be read to see them,
	// and so do its OnHTML callbacks: skip it there. The Extension has
	// reported it to OnBlocked and refuses its links. Always false
	// without WithPurpose.
	Refused bool
}

// TDMRep is what the TDM Reservation Protocol (W3C Community Group Final
// Report, 2024-05-10) says about a page: the reservation in force once the
// origin's tdmrep.json (read only with WithPurpose), the page's
// tdm-reservation and tdm-policy headers, and its tdm-reservation and
// tdm-policy meta tags are laid over one another in that order, each
// superseding what it states, as the report orders them. The zero value
// says nothing.
type TDMRep struct {
	// Reservation is the tdm-reservation in force.
	Reservation TDMReservation
	// Policy is the tdm-policy URL as written, or "". It is exposed,
	// neither fetched nor interpreted.
	Policy string
	// Source is where Reservation was stated: SourceTDMRepFile,
	// SourceTDMRepHeader or SourceTDMRepMeta; SourceNone when unset.
	Source UsageSource
	// Rule is the index in tdmrep.json of the rule that stated it, when
	// Source is SourceTDMRepFile; 0 otherwise.
	Rule int
}

// TDMReservation is a tdm-reservation value. TDMReserved is the
// rightsholder's opt-out of text and data mining (Article 4 of the EU
// Directive 2019/790), which the Extension reads as train-ai=n; see
// WithPurpose.
type TDMReservation uint8

const (
	// TDMUnset: nothing was stated, or a value other than 0 and 1.
	TDMUnset TDMReservation = iota
	// TDMNotReserved: tdm-reservation 0; read as train-ai=y.
	TDMNotReserved
	// TDMReserved: tdm-reservation 1; read as train-ai=n.
	TDMReserved
)

// String returns "1", "0" or "unset".
func (r TDMReservation) String() string { return tdmrep.Reservation(r).String() }

// The protocol's package numbers reservations as TDMReservation does; each
// constant below fails to compile if one stops doing so.
const (
	_ uint8 = uint8(TDMUnset) - uint8(tdmrep.Unset)
	_ uint8 = uint8(tdmrep.Unset) - uint8(TDMUnset)
	_ uint8 = uint8(TDMNotReserved) - uint8(tdmrep.NotReserved)
	_ uint8 = uint8(tdmrep.NotReserved) - uint8(TDMNotReserved)
	_ uint8 = uint8(TDMReserved) - uint8(tdmrep.Reserved)
	_ uint8 = uint8(tdmrep.Reserved) - uint8(TDMReserved)
)

// tdmRepOf is a declaration of the protocol's package as a TDMRep.
func tdmRepOf(d tdmrep.Declaration) TDMRep {
	t := TDMRep{Reservation: TDMReservation(d.Reservation), Policy: d.Policy}
	switch d.From {
	case tdmrep.TechniqueFile:
		t.Source, t.Rule = SourceTDMRepFile, d.Rule
	case tdmrep.TechniqueHeader:
		t.Source = SourceTDMRepHeader
	case tdmrep.TechniqueMeta:
		t.Source = SourceTDMRepMeta
	}
	return t
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
// the origin's cached robots.txt (and, with WithPurpose, tdmrep.json) and
// the response's headers and head. Page works with any option; it reads
// the response again unless the Extension already read it to refuse the
// page's links, which costs a few header lookups and a scan of the head.
// Page(nil) returns the zero Page.
func (e *Extension) Page(resp *colly.Response) Page {
	if resp == nil || resp.Request == nil {
		return Page{}
	}
	p := Page{URL: resp.Request.URL}
	var meta tdmrep.Declaration
	if m := markOf(resp.Request.Ctx); m != nil && m.page == resp.Request {
		p.Directives, meta = m.dirs, m.meta
		if len(e.cfg.purposes) == 0 && resp.Headers != nil && directives.IsHTML(resp.Headers.Get("Content-Type"), resp.Body) {
			directives.ReadHead(e.token(), resp.Body, &meta) // the hook read the directives only
		}
	} else if resp.Headers != nil {
		p.Directives = directives.Read(e.token(), *resp.Headers, resp.Body, &meta)
	} else if directives.IsHTML("", resp.Body) {
		p.Directives = directives.ReadHead(e.token(), resp.Body, &meta)
	}
	usage, decl := e.pageUsage(resp, p.Directives, meta)
	p.Usage, p.TDMRep = usage, tdmRepOf(decl)
	_, p.Refused = usage.refuses(e.cfg.purposes)
	return p
}
