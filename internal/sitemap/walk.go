package sitemap

// This file is the Walker: it reads a set of sitemaps, follows the
// indexes among them, keeps the location rule and the walk's bounds, and
// yields the pages entry by entry.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
)

// Fetch returns the body of the sitemap at u; the Walker closes it. An
// error is yielded and the walk goes on with the next sitemap. A body
// with a method Final() *url.URL (a redirect's last URL) is judged by the
// location rule of that URL.
type Fetch func(ctx context.Context, u *url.URL) (io.ReadCloser, error)

// Root is a sitemap a walk starts from.
type Root struct {
	URL string
	// NamedBy is the origin whose robots.txt names the sitemap ("" for
	// none): the sitemap may list any URL of it (a cross-submission).
	NamedBy string
}

// Walker reads sitemaps through Fetch, by its Rules (the zero Limits are
// the defaults; SkipUnchanged is the caller's, who sets Unchanged).
type Walker struct {
	Fetch Fetch
	Rules
	// Unchanged, when set, tells the pages not to yield (counted in
	// Counts.Unchanged): those a crawl has stored since their LastMod.
	Unchanged func(context.Context, Entry) bool
	// Counted, when set, is called with each walk's Counts at its end.
	Counted func(Counts)
}

// job is a sitemap to read.
type job struct {
	u     *url.URL
	key   string   // u normalized (keyOf)
	above []string // the keys of the indexes that led to it, the root first
	depth int
	named string
}

// keyOf is u as the walk's seen-set knows it: its origin in lower case
// without the default port, its path's dot segments resolved, its query;
// so that http://EX.test:80/a/../s.xml is http://ex.test/s.xml.
func keyOf(u *url.URL) string {
	k := Origin(u) + clean(u).EscapedPath()
	if u.RawQuery != "" || u.ForceQuery {
		k += "?" + u.RawQuery
	}
	return k
}

// walk is the state of one Walk.
type walk struct {
	w     *Walker
	lim   Limits
	ctx   context.Context
	yield func(Entry, error) bool
	n     Counts
	seen  map[string]bool
	queue []job
	done  bool // the consumer stopped, the context ended, or the entries bound was reached
	full  bool // the sitemaps bound was reached (reported once); what is queued is still read
}

// Walk reads roots, then the sitemaps their indexes list, breadth first,
// yielding each page entry, and an error for what could not be read or
// was cut; it ends when everything is read, a walk bound is reached, ctx
// ends, or yield returns false.
func (w *Walker) Walk(ctx context.Context, roots []Root, yield func(Entry, error) bool) {
	k := &walk{w: w, lim: withDefaults(w.Limits), ctx: ctx, yield: yield, seen: map[string]bool{}}
	defer func() {
		if w.Counted != nil {
			w.Counted(k.n)
		}
	}()
	for _, r := range roots {
		if k.done {
			return // the consumer stopped: yield must not be called again
		}
		u, err := url.Parse(r.URL)
		if err != nil || !goodURL(r.URL) {
			k.fail(fmt.Errorf("sitemap %q: %w: not an absolute http(s) URL", r.URL, ErrMalformed))
			continue
		}
		k.add(job{u: clean(u), named: r.NamedBy}, nil)
	}
	for len(k.queue) > 0 && !k.done {
		j := k.queue[0]
		k.queue = k.queue[1:]
		k.read(j)
	}
}

// add queues j unless it was queued already in this walk or the walk's
// sitemap bound is reached; index is the index listing it, nil for a
// root. An index that lists itself or an index above it is a loop,
// reported; a sitemap reached again another way (a robots.txt naming an
// index and its sitemaps) is a duplicate, counted.
func (k *walk) add(j job, index *job) {
	j.key = keyOf(j.u)
	key := j.key
	if index != nil {
		if slices.Contains(index.above, key) || index.key == key {
			k.n.Loops++
			k.fail(fmt.Errorf("sitemap %s lists %s, which leads to it: %w", index.u.Redacted(), j.u.Redacted(), ErrLoop))
			return
		}
		j.above = append(slices.Clip(index.above), index.key)
	}
	if k.seen[key] {
		k.n.Duplicates++
		return
	}
	if len(k.seen) >= k.lim.Sitemaps {
		if !k.full {
			k.full = true
			k.n.Cut++
			k.fail(&LimitError{URL: j.u.String(), Bound: "sitemaps", Limit: int64(k.lim.Sitemaps)})
		}
		return
	}
	k.seen[key] = true
	k.queue = append(k.queue, j)
}

// read fetches one sitemap and yields its pages, queueing an index's
// sitemaps.
func (k *walk) read(j job) {
	if k.ctx.Err() != nil {
		k.end()
		return
	}
	body, err := k.w.Fetch(k.ctx, j.u)
	if err != nil {
		if k.ctx.Err() != nil {
			k.end()
			return
		}
		k.n.Failed++
		k.fail(err)
		return
	}
	defer body.Close()
	k.n.Sitemaps++
	sc := scopeOf(j.u, j.named)
	if f, ok := body.(interface{ Final() *url.URL }); ok && f.Final() != nil {
		sc = scopeOf(clean(f.Final()), j.named) // redirected: where the file is, by its server's word
	}
	deep := false
	res, err := Read(body, j.u.String(), k.lim, func(it Item) bool {
		if k.ctx.Err() != nil {
			k.end()
			return false
		}
		loc, perr := url.Parse(it.Loc)
		if perr != nil {
			k.n.Skipped++
			return true
		}
		if c := clean(loc); c != loc {
			loc, it.Loc = c, c.String() // what a client fetches, and what the location rule judges
		}
		if it.Child {
			return k.child(j, sc, loc, &deep)
		}
		if !k.w.KeepOutside && !sc.holds(loc) {
			k.n.Outside++
			return true
		}
		if k.w.Unchanged != nil && k.w.Unchanged(k.ctx, it.Entry) {
			k.n.Unchanged++
			return true
		}
		if k.n.Entries >= k.lim.Entries {
			k.cut(&LimitError{URL: j.u.String(), Bound: "entries", Limit: int64(k.lim.Entries)})
			return false
		}
		k.n.Entries++
		if !k.yield(it.Entry, nil) {
			k.done = true
			return false
		}
		return true
	})
	k.n.Skipped += res.Skipped
	if err != nil && !k.done && k.ctx.Err() != nil {
		k.n.Failed++
		k.end() // the body failed as the context ended: one error says so
		return
	}
	if err != nil && !k.done {
		var le *LimitError
		if errors.As(err, &le) {
			k.n.Cut++
		} else {
			k.n.Failed++
		}
		if !k.yield(Entry{Sitemap: j.u.String()}, err) {
			k.done = true
		}
	}
}

// child queues a sitemap the index j lists, within the depth bound (a
// depth reached is reported once per index) and the location rule.
func (k *walk) child(j job, sc scope, loc *url.URL, deep *bool) bool {
	if !k.w.KeepOutside && !sc.holdsSitemap(loc) {
		k.n.Outside++
		return true
	}
	if j.depth+1 > k.lim.Depth {
		if !*deep {
			*deep = true
			k.n.Cut++
			if !k.yield(Entry{Sitemap: j.u.String()}, &LimitError{URL: j.u.String(), Bound: "depth", Limit: int64(k.lim.Depth)}) {
				k.done = true
				return false
			}
		}
		return true
	}
	k.add(job{u: loc, depth: j.depth + 1, named: j.named}, &j)
	return !k.done
}

// end ends the walk as its context ended, yielding that it was cut
// short, once.
func (k *walk) end() {
	if !k.done {
		k.done = true
		k.yield(Entry{}, fmt.Errorf("sitemap: read cut short: %w", k.ctx.Err()))
	}
}

// fail yields err, ending the walk if the consumer stops.
func (k *walk) fail(err error) {
	if !k.yield(Entry{}, err) {
		k.done = true
	}
}

// cut yields a walk bound reached and ends the walk.
func (k *walk) cut(err error) {
	k.n.Cut++
	k.fail(err)
	k.done = true
}
