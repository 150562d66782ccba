package sitemap

// This file reads the XML formats token by token with encoding/xml's
// Decoder: each entry (<url>, <sitemap>, <item>, <entry>) is gathered
// from its direct children and passed on at its end tag, so that no more
// than one entry is held.

import (
	"bufio"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// xhtmlNS is the namespace of a urlset's <xhtml:link> alternates.
const xhtmlNS = "http://www.w3.org/1999/xhtml"

// maxField bounds the text kept of one field of an entry; the rest is
// dropped (a URL longer than MaxLocBytes is a bad entry anyway).
const maxField = MaxLocBytes + 1

// maxDepth bounds the nesting of elements, which the decoder keeps a
// stack of: a sitemap's entries are three or four deep.
const maxDepth = 64

// formats maps a root element to its format and its entries' element.
var formats = map[string][2]string{
	"urlset":       {"urlset", "url"},
	"sitemapindex": {"sitemapindex", "sitemap"},
	"rss":          {"rss", "item"},
	"feed":         {"atom", "entry"},
}

// xml reads an XML sitemap, index, RSS 2.0 or Atom 1.0 feed.
func (rd *reader) xml(br *bufio.Reader) error {
	d := newDecoder(&squeeze{r: br})
	var (
		record   string // the entries' element name
		inRecord int    // the depth of the entry being read, 0 outside
		field    string // the field whose text is gathered, "" for none
		text     strings.Builder
		it       Item
		depth    int
	)
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			if depth == 0 && record == "" {
				return fmt.Errorf("sitemap %s: %w: no root element", rd.url, ErrMalformed)
			}
			return nil
		}
		if err != nil {
			var syntax *xml.SyntaxError
			if !errors.As(err, &syntax) && !errors.Is(err, ErrMalformed) {
				return err // the body's own (a bound, a timeout, a reset)
			}
			return fmt.Errorf("sitemap %s: %w: %v", rd.url, ErrMalformed, err)
		}
		switch t := tok.(type) {
		case xmlStart:
			if depth++; depth > maxDepth {
				return fmt.Errorf("sitemap %s: %w: elements nested deeper than %d", rd.url, ErrMalformed, maxDepth)
			}
			name := strings.ToLower(t.Name.Local)
			if depth == 1 {
				f, ok := formats[name]
				if !ok {
					return fmt.Errorf("sitemap %s: %w: root element <%s> is not a sitemap's", rd.url, ErrMalformed, t.Name.Local)
				}
				rd.res.Format, record = f[0], f[1]
				rd.res.Index = name == "sitemapindex"
				continue
			}
			if inRecord == 0 && name == record {
				inRecord, it = depth, Item{Child: rd.res.Index}
				continue
			}
			if inRecord == 0 || depth != inRecord+1 {
				continue
			}
			switch {
			case name == "link" && t.Name.Space == xhtmlNS || name == "link" && attr(t, "hreflang") != "" && rd.res.Format == "urlset":
				if strings.EqualFold(attr(t, "rel"), "alternate") {
					lang, href := strings.TrimSpace(attr(t, "hreflang")), strings.TrimSpace(attr(t, "href"))
					if lang != "" && goodURL(href) && len(it.Alternates) < MaxAlternates {
						it.Alternates = append(it.Alternates, Alternate{Hreflang: lang, Href: href})
					} else {
						rd.res.Skipped++
					}
				}
			case name == "link" && rd.res.Format == "atom":
				if rel := attr(t, "rel"); it.Loc == "" && (rel == "" || strings.EqualFold(rel, "alternate")) {
					it.Loc = attr(t, "href")
				}
			case t.Name.Space != "" && rd.res.Format == "rss":
				// another vocabulary's element in an item (atom:link, dc:date)
			case name == "loc" || name == "link" && rd.res.Format == "rss",
				name == "lastmod", name == "pubdate", name == "updated", name == "published":
				field = name
				text.Reset()
			}
		case xmlChars:
			if field != "" && text.Len() < maxField {
				text.Write(t[:min(len(t), maxField-text.Len())])
			}
		case xmlEnd:
			if inRecord != 0 && depth == inRecord+1 && field != "" {
				setField(&it, field, text.String())
				field = ""
			}
			if inRecord != 0 && depth == inRecord {
				inRecord = 0
				if err := rd.entry(it); err != nil {
					return stopNil(err)
				}
			}
			depth--
		}
	}
}

// setField stores one field's text in it: the first URL, the last date
// (an Atom entry's <published> only when it has no <updated>).
func setField(it *Item, field, s string) {
	s = strings.TrimSpace(s)
	switch {
	case field == "loc" || field == "link":
		if it.Loc == "" {
			it.Loc = s
		}
	case field == "published" && it.LastModText != "":
	default: // lastmod, pubdate, updated
		if !utf8.ValidString(s) {
			s = strings.ToValidUTF8(s, "\uFFFD")
		}
		it.LastModText, it.LastMod = s, ParseLastMod(s)
	}
}
