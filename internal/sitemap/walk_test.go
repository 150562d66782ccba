package sitemap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"testing"
)

// files is a site of sitemaps for a Walker, by URL; a URL it lacks fails.
type files map[string]string

func (f files) fetch(_ context.Context, u *url.URL) (io.ReadCloser, error) {
	b, ok := f[u.String()]
	if !ok {
		return nil, fmt.Errorf("no %s", u)
	}
	return io.NopCloser(strings.NewReader(b)), nil
}

func index(locs ...string) string {
	var b strings.Builder
	b.WriteString(`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for _, l := range locs {
		fmt.Fprintf(&b, "<sitemap><loc>%s</loc></sitemap>", l)
	}
	return b.String() + "</sitemapindex>"
}

func urlset(locs ...string) string {
	var b strings.Builder
	b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for _, l := range locs {
		fmt.Fprintf(&b, "<url><loc>%s</loc></url>", l)
	}
	return b.String() + "</urlset>"
}

// walked runs a walk and returns the locs and the errors yielded, and
// its Counts.
func walked(w *Walker, roots ...Root) (locs []string, errs []error, n Counts) {
	w.Counted = func(c Counts) { n = c }
	w.Walk(context.Background(), roots, func(e Entry, err error) bool {
		if err != nil {
			errs = append(errs, err)
		} else {
			locs = append(locs, e.Loc)
		}
		return true
	})
	return locs, errs, n
}

func TestWalk(t *testing.T) {
	t.Parallel()
	const s = "https://ex.com/"
	for _, tc := range []struct {
		name   string
		files  files
		roots  []Root
		lim    Limits
		keep   bool
		locs   string
		errs   []error
		counts Counts
	}{
		{name: "gzipped index of two sitemaps", files: files{s + "index.xml.gz": gz(t, index(s+"a.xml", s+"b.txt")), s + "a.xml": urlset(s+"1", s+"2"), s + "b.txt": s + "3\n"},
			roots: []Root{{URL: s + "index.xml.gz"}}, locs: s + "1 " + s + "2 " + s + "3", counts: Counts{Sitemaps: 3, Entries: 3}},
		{name: "an index that lists itself", files: files{s + "index.xml": index(s+"index.xml", s+"a.xml"), s + "a.xml": urlset(s + "1")},
			roots: []Root{{URL: s + "index.xml"}}, locs: s + "1", errs: []error{ErrLoop}, counts: Counts{Sitemaps: 2, Entries: 1, Loops: 1}},
		{name: "a root named twice is read once", files: files{s + "a.xml": urlset(s + "1")},
			roots: []Root{{URL: s + "a.xml"}, {URL: s + "a.xml"}}, locs: s + "1", counts: Counts{Sitemaps: 1, Entries: 1, Duplicates: 1}},
		{name: "a robots.txt naming an index and its sitemaps", files: files{s + "i.xml": index(s+"a.xml", s+"b.xml"), s + "a.xml": urlset(s + "1"), s + "b.xml": urlset(s + "2")},
			roots: []Root{{URL: s + "i.xml"}, {URL: s + "a.xml"}, {URL: s + "b.xml"}}, locs: s + "1 " + s + "2", counts: Counts{Sitemaps: 3, Entries: 2, Duplicates: 2}},
		{name: "two indexes listing one sitemap", files: files{s + "i.xml": index(s+"j.xml", s+"k.xml"), s + "j.xml": index(s + "a.xml"), s + "k.xml": index(s + "a.xml"), s + "a.xml": urlset(s + "1")},
			roots: []Root{{URL: s + "i.xml"}}, locs: s + "1", counts: Counts{Sitemaps: 4, Entries: 1, Duplicates: 1}},
		{name: "a cycle of two indexes", files: files{s + "i.xml": index(s + "j.xml"), s + "j.xml": index(s+"i.xml", s+"a.xml"), s + "a.xml": urlset(s + "1")},
			roots: []Root{{URL: s + "i.xml"}}, locs: s + "1", errs: []error{ErrLoop}, counts: Counts{Sitemaps: 3, Entries: 1, Loops: 1}},
		{name: "one sitemap under two spellings", files: files{"http://DUP.test:80/a.xml": urlset("http://dup.test/1")},
			roots: []Root{{URL: "http://DUP.test:80/a.xml"}, {URL: "http://dup.test/x/../a.xml"}}, locs: "http://dup.test/1", counts: Counts{Sitemaps: 1, Entries: 1, Duplicates: 1}},
		{name: "dot segments out of the directory", files: files{s + "blog/s.xml": urlset(s+"blog/../admin", s+"blog/%2e%2e/admin2", s+"blog/.%2E/admin3", s+"blog/./a/../b")},
			roots: []Root{{URL: s + "blog/s.xml"}}, locs: s + "blog/b", counts: Counts{Sitemaps: 1, Entries: 1, Outside: 3}},
		{name: "indexes nested past the depth", files: files{s + "i0.xml": index(s + "i1.xml"), s + "i1.xml": index(s + "i2.xml"), s + "i2.xml": index(s + "a.xml"), s + "a.xml": urlset(s + "1")},
			roots: []Root{{URL: s + "i0.xml"}}, lim: Limits{Depth: 2}, errs: []error{ErrLimit}, counts: Counts{Sitemaps: 3, Cut: 1}},
		{name: "more sitemaps than the bound", files: files{s + "i.xml": index(s+"a.xml", s+"b.xml", s+"c.xml"), s + "a.xml": urlset(s + "1"), s + "b.xml": urlset(s + "2")},
			roots: []Root{{URL: s + "i.xml"}}, lim: Limits{Sitemaps: 3}, locs: s + "1 " + s + "2", errs: []error{ErrLimit}, counts: Counts{Sitemaps: 3, Entries: 2, Cut: 1}},
		{name: "more entries than the bound", files: files{s + "a.xml": urlset(s+"1", s+"2", s+"3"), s + "b.xml": urlset(s + "4")},
			roots: []Root{{URL: s + "a.xml"}, {URL: s + "b.xml"}}, lim: Limits{Entries: 2}, locs: s + "1 " + s + "2", errs: []error{ErrLimit}, counts: Counts{Sitemaps: 1, Entries: 2, Cut: 1}},
		{name: "a sitemap that cannot be fetched", files: files{s + "b.xml": urlset(s + "2")},
			roots: []Root{{URL: s + "a.xml"}, {URL: s + "b.xml"}}, locs: s + "2", errs: []error{nil}, counts: Counts{Sitemaps: 1, Entries: 1, Failed: 1}},
		{name: "a root that is no URL", roots: []Root{{URL: "/sitemap.xml"}}, errs: []error{ErrMalformed}},
		{name: "location rule", files: files{s + "blog/sitemap.xml": urlset(s+"blog/a", s+"other", "https://other.com/blog/x", "http://ex.com/blog/b", s+"blog")},
			roots: []Root{{URL: s + "blog/sitemap.xml"}}, locs: s + "blog/a", counts: Counts{Sitemaps: 1, Entries: 1, Outside: 4}},
		{name: "location rule kept", keep: true, files: files{s + "blog/sitemap.xml": urlset(s+"blog/a", s+"other", "https://other.com/x")},
			roots: []Root{{URL: s + "blog/sitemap.xml"}}, locs: s + "blog/a " + s + "other https://other.com/x", counts: Counts{Sitemaps: 1, Entries: 3}},
		{name: "cross-submission", files: files{"https://cdn.ex.net/maps/ex.xml": urlset(s+"a", "https://cdn.ex.net/maps/b", "https://cdn.ex.net/c", "https://third.com/d")},
			roots: []Root{{URL: "https://cdn.ex.net/maps/ex.xml", NamedBy: "https://ex.com"}}, locs: s + "a https://cdn.ex.net/maps/b", counts: Counts{Sitemaps: 1, Entries: 2, Outside: 2}},
		{name: "an index lists only its own origin's sitemaps", files: files{s + "i.xml": index("https://evil.com/a.xml", s+"a.xml"), s + "a.xml": urlset(s + "1")},
			roots: []Root{{URL: s + "i.xml"}}, locs: s + "1", counts: Counts{Sitemaps: 2, Entries: 1, Outside: 1}},
		{name: "a cut file", files: files{s + "a.xml": urlset(s+"1", s+"2", s+"3")},
			roots: []Root{{URL: s + "a.xml"}}, lim: Limits{FileURLs: 2}, locs: s + "1 " + s + "2", errs: []error{ErrLimit}, counts: Counts{Sitemaps: 1, Entries: 2, Cut: 1}},
		{name: "a broken file", files: files{s + "a.xml": "<urlset><url><loc>" + s + "1</loc></url><url"},
			roots: []Root{{URL: s + "a.xml"}}, locs: s + "1", errs: []error{ErrMalformed}, counts: Counts{Sitemaps: 1, Entries: 1, Failed: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := &Walker{Fetch: tc.files.fetch, Rules: Rules{Limits: tc.lim, KeepOutside: tc.keep}}
			locs, errs, n := walked(w, tc.roots...)
			if got := strings.Join(locs, " "); got != tc.locs {
				t.Errorf("locs %q, want %q", got, tc.locs)
			}
			if len(errs) != len(tc.errs) {
				t.Fatalf("errors %v, want %d", errs, len(tc.errs))
			}
			for i, want := range tc.errs {
				if want != nil && !errors.Is(errs[i], want) {
					t.Errorf("error %v, want %v", errs[i], want)
				}
			}
			if n != tc.counts {
				t.Errorf("counts %+v, want %+v", n, tc.counts)
			}
		})
	}
}

// TestWalkEnds: the walk ends when the consumer breaks and when the
// context ends, fetching nothing more; at the context's end it yields
// one error wrapping the context's.
func TestWalkEnds(t *testing.T) {
	t.Parallel()
	const s = "https://ex.com/"
	f := files{s + "a.xml": urlset(s+"1", s+"2"), s + "b.xml": urlset(s + "3")}
	fetched := 0
	w := &Walker{Fetch: func(ctx context.Context, u *url.URL) (io.ReadCloser, error) { fetched++; return f.fetch(ctx, u) }}
	n := 0
	w.Walk(context.Background(), []Root{{URL: s + "a.xml"}, {URL: s + "b.xml"}}, func(Entry, error) bool { n++; return false })
	if n != 1 || fetched != 1 {
		t.Errorf("break: %d yielded, %d fetched", n, fetched)
	}
	n = 0 // two bad roots: the walk stops at the first, as the consumer asks
	w.Walk(context.Background(), []Root{{URL: "/a"}, {URL: "/b"}}, func(Entry, error) bool { n++; return false })
	if n != 1 {
		t.Errorf("break on a bad root: %d yielded", n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	n, fetched = 0, 0
	var last error // the walk says it was cut short
	w.Walk(ctx, []Root{{URL: s + "a.xml"}, {URL: s + "b.xml"}}, func(_ Entry, err error) bool { n++; last = err; cancel(); return true })
	if n != 2 || fetched != 1 || !errors.Is(last, context.Canceled) {
		t.Errorf("cancel: %d yielded (the entry, then the end), %d fetched, last %v", n, fetched, last)
	}
}

// redirected is a body that came from another URL.
type redirected struct {
	io.ReadCloser
	to *url.URL
}

func (r redirected) Final() *url.URL { return r.to }

// TestWalkRedirected: a sitemap redirected elsewhere is judged by the
// location rule of where it was found, not of the URL it was listed at.
func TestWalkRedirected(t *testing.T) {
	t.Parallel()
	const s = "https://ex.com/"
	to, _ := url.Parse(s + "other/s.xml")
	w := &Walker{Fetch: func(context.Context, *url.URL) (io.ReadCloser, error) {
		return redirected{io.NopCloser(strings.NewReader(urlset(s+"other/p", s+"blog/p"))), to}, nil
	}}
	locs, errs, n := walked(w, Root{URL: s + "blog/s.xml"})
	if strings.Join(locs, " ") != s+"other/p" || len(errs) != 0 || n.Outside != 1 {
		t.Errorf("locs %v, errors %v, %+v; want other/p only", locs, errs, n)
	}
}
