package sitemap

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"unicode/utf8"
)

// Item is one entry of a sitemap file: a page, or (Child) a sitemap an
// index lists.
type Item struct {
	Child bool
	Entry
}

// Result says what Read found in one file.
type Result struct {
	Index   bool   // a <sitemapindex>
	Format  string // "urlset", "sitemapindex", "rss", "atom" or "text"
	Items   int    // items passed to fn
	Skipped int    // bad entries skipped (no or bad URL, longer than MaxLocBytes), and alternates (a bad href, past MaxAlternates)
}

// Read reads one sitemap file from r, whatever its format (XML urlset or
// index, RSS 2.0, Atom 1.0 or text; gzipped or not), calling fn for each
// good entry in order until fn returns false. sitemapURL names the file
// in errors and fills Entry.Sitemap. Only lim's file bounds apply: past
// them Read stops with a *LimitError. Broken XML stops it with an error
// wrapping ErrMalformed, a body that fails with its error; what came
// before was passed to fn.
func Read(r io.Reader, sitemapURL string, lim Limits, fn func(Item) bool) (Result, error) {
	lim = withDefaults(lim)
	br, err := open(r, lim.FileBytes)
	if err != nil {
		return Result{}, fmt.Errorf("sitemap %s: %w", sitemapURL, err)
	}
	rd := reader{url: sitemapURL, lim: lim, fn: fn}
	if isXML(br) {
		err = rd.xml(br)
	} else {
		rd.res.Format = "text"
		err = rd.text(br)
	}
	switch {
	case errors.Is(err, errCut):
		err = &LimitError{URL: sitemapURL, Bound: "file bytes", Limit: lim.FileBytes}
	case errors.Is(err, errToken):
		err = &LimitError{URL: sitemapURL, Bound: "token bytes", Limit: maxTokenBytes}
	case err != nil && !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrLimit):
		err = fmt.Errorf("sitemap %s: read cut short: %w", sitemapURL, err) // the body's own error
	}
	return rd.res, err
}

// reader is the state of one Read.
type reader struct {
	url     string
	lim     Limits
	fn      func(Item) bool
	res     Result
	records int  // entries met, good and bad
	stopped bool // fn returned false
}

// errStop ends a read that fn stopped.
var errStop = errors.New("sitemap: stopped")

// entry takes one entry met in the file: it counts it against the file's
// bound, checks its URL and passes it to fn.
func (rd *reader) entry(it Item) error {
	rd.records++
	if rd.records > rd.lim.FileURLs {
		return &LimitError{URL: rd.url, Bound: "file URLs", Limit: int64(rd.lim.FileURLs)}
	}
	it.Loc = strings.TrimSpace(it.Loc)
	if !goodURL(it.Loc) {
		rd.res.Skipped++
		return nil
	}
	it.Sitemap = rd.url
	rd.res.Items++
	if !rd.fn(it) {
		rd.stopped = true
		return errStop
	}
	return nil
}

// goodURL reports whether s is an absolute http(s) URL with a host, in
// UTF-8 and within MaxLocBytes.
func goodURL(s string) bool {
	if s == "" || len(s) > MaxLocBytes || !utf8.ValidString(s) {
		return false
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return false
	}
	scheme := strings.ToLower(u.Scheme)
	return scheme == "http" || scheme == "https"
}
