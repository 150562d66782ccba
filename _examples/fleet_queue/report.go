package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/robotsext/robotsext"
)

// report is what a run did: what each worker says it did, and what each
// server saw.
type report struct {
	Redis   string         // which Redis the fleet shared
	Prefix  string         // the run's key prefix
	Workers []workerResult // by worker id
	Sites   []siteReport
	Queued  int64         // URLs that ever entered the frontier (the visited set's size)
	Took    time.Duration // from the workers' start to the last one's stop
	Removed int           // keys under Prefix deleted at the end
}

// siteReport is one site's part of the report.
type siteReport struct {
	Name, URL, Rules string
	Delay            time.Duration // the Crawl-delay it asks for; 0: none
	Has              int           // pages it has
	Robots           int           // robots.txt requests it saw
	Pages            int           // page requests it saw
	ByWorker         []int         // of those, how many each worker sent, by worker id - 1
	Blocked          []blocked     // its URLs the workers reported blocked
	Reached          int           // of those, how many it saw requested anyway
	Gap              time.Duration // the smallest gap between two page requests
	HasGap           bool          // false with fewer than two page requests
}

// newReport reads the workers' results from the frontier's hash and the
// sites' records.
func newReport(ctx context.Context, q *frontier, workers int, sites []*site) (*report, error) {
	rep := &report{}
	for i := range workers {
		id := strconv.Itoa(i + 1)
		b, err := q.rdb.HGet(ctx, q.res, id).Bytes()
		if err != nil {
			return nil, fmt.Errorf("the result of worker %s: %w", id, err)
		}
		var r workerResult
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("the result of worker %s: %w", id, err)
		}
		rep.Workers = append(rep.Workers, r)
	}
	var err error
	if rep.Queued, err = q.queued(ctx); err != nil {
		return nil, err
	}

	for _, s := range sites {
		robots, arrivals := s.seen()
		sr := siteReport{Name: s.name, URL: s.srv.URL, Rules: s.rules, Delay: s.delay,
			Has: len(s.pages), Robots: robots, Pages: len(arrivals)}
		sr.Gap, sr.HasGap = smallestGap(arrivals)
		sr.ByWorker = make([]int, workers)
		for _, a := range arrivals {
			if i, err := strconv.Atoi(a.worker); err == nil && i >= 1 && i <= workers {
				sr.ByWorker[i-1]++
			}
		}
		for _, w := range rep.Workers {
			for _, b := range w.Blocked {
				u, err := url.Parse(b.URL)
				if err != nil || u.Host != s.host() {
					continue
				}
				sr.Blocked = append(sr.Blocked, b)
				for _, a := range arrivals {
					if a.path == u.RequestURI() {
						sr.Reached++
						break
					}
				}
			}
		}
		rep.Sites = append(rep.Sites, sr)
	}
	return rep, nil
}

// ok reports whether the run proved its point: one robots.txt request per
// site, no blocked URL on the wire, every page fetched once, each URL
// claimed by one worker, and every Crawl-delay kept at the server.
func (r *report) ok() bool {
	claimed := 0
	for _, w := range r.Workers {
		claimed += w.Claimed
	}
	if int64(claimed) != r.Queued {
		return false
	}
	for _, s := range r.Sites {
		if s.Robots != 1 || s.Reached != 0 || s.Pages != s.Has {
			return false
		}
		if s.Delay > 0 && s.HasGap && s.Gap < s.Delay {
			return false
		}
	}
	return true
}

// print writes the report.
func (r *report) print(w io.Writer) {
	fmt.Fprintf(w, "%d workers (colly.Async, LimitRule Parallelism %d each) sharing %s, keys under %s\n\n",
		len(r.Workers), parallelism, r.Redis, r.Prefix)

	fmt.Fprintln(w, "sites:")
	for _, s := range r.Sites {
		fmt.Fprintf(w, "  %-5s %s  %-20s %d pages\n", s.Name, s.URL, s.Rules, s.Has)
	}

	fmt.Fprintln(w, "\nworkers (robots.txt: fetches the worker made itself; the others adopted its record from Redis;")
	fmt.Fprintln(w, "Redis errors: backend calls that failed, after each of which the worker fetched and paced on its own):")
	var claimed, pages, nblocked, failed, links, fresh int
	var redisErrors uint64
	for _, wr := range r.Workers {
		fmt.Fprintf(w, "  worker %s: claimed %2d URLs: %2d fetched, %d blocked, %d failed; found %2d links, %2d new; robots.txt: %d; Redis errors: %d\n",
			wr.ID, wr.Claimed, wr.Pages, len(wr.Blocked), wr.Failed, wr.Links, wr.New, wr.Robots, wr.BackendErrors)
		redisErrors += wr.BackendErrors
		claimed += wr.Claimed
		pages += wr.Pages
		nblocked += len(wr.Blocked)
		failed += wr.Failed
		links += wr.Links
		fresh += wr.New
	}
	fmt.Fprintf(w, "  together: claimed %d URLs: %d fetched, %d blocked, %d failed; found %d links, %d new\n",
		claimed, pages, nblocked, failed, links, fresh)
	fmt.Fprintf(w, "  frontier: %d URLs entered it (%d home pages + %d new links), each claimed by one worker: %s\n",
		r.Queued, len(r.Sites), fresh, verdict(int64(claimed) == r.Queued, fmt.Sprintf("%d claims for %d URLs", claimed, r.Queued)))

	fmt.Fprintln(w, "\nblocked by robots.txt (reported through OnBlocked by the worker that claimed the URL):")
	for _, s := range r.Sites {
		for _, b := range s.Blocked {
			fmt.Fprintf(w, "  %-5s %-16s %s, line %d: %q\n", s.Name, strings.TrimPrefix(b.URL, s.URL), b.Reason, b.Line, b.Rule)
		}
	}

	fmt.Fprintln(w, "\nwhat each server saw:")
	fmt.Fprintf(w, "  %-5s %-11s %-8s %-10s %-8s %-16s %s\n", "site", "robots.txt", "pages", "by worker", "blocked", "blocked on wire", "smallest gap between page requests")
	for _, s := range r.Sites {
		gap := "-"
		if s.HasGap {
			gap = fmt.Sprintf("%.1f ms", float64(s.Gap.Truncate(100*time.Microsecond))/float64(time.Millisecond))
		}
		switch {
		case s.Delay == 0 && s.HasGap && s.Gap >= robotsext.DefaultDelay:
			gap += fmt.Sprintf(" ≥ the default pace %g s (no Crawl-delay)", robotsext.DefaultDelay.Seconds())
		case s.Delay == 0:
			gap += " (no Crawl-delay: the default pace)"
		case s.HasGap && s.Gap >= s.Delay:
			gap += fmt.Sprintf(" ≥ Crawl-delay %g s", s.Delay.Seconds())
		case s.HasGap:
			gap += fmt.Sprintf(" < Crawl-delay %g s: NOT KEPT", s.Delay.Seconds())
		}
		by := make([]string, len(s.ByWorker))
		for i, n := range s.ByWorker {
			by[i] = strconv.Itoa(n)
		}
		fmt.Fprintf(w, "  %-5s %-11d %-8s %-10s %-8d %-16d %s\n", s.Name, s.Robots, fmt.Sprintf("%d of %d", s.Pages, s.Has),
			strings.Join(by, "+"), len(s.Blocked), s.Reached, gap)
	}

	var once, onWire = true, 0
	for _, s := range r.Sites {
		once = once && s.Robots == 1
		onWire += s.Reached
	}
	var missed bool
	for _, s := range r.Sites {
		missed = missed || (s.Delay > 0 && s.HasGap && s.Gap < s.Delay)
	}
	if missed && redisErrors > 0 {
		fmt.Fprintf(w, "\n%d backend calls to Redis failed: a worker whose call failed paced the site on its own, at the\n"+
			"Crawl-delay times the fleet size, which keeps the fleet's rate but not each gap between two workers.\n", redisErrors)
	}
	fmt.Fprintf(w, "\nrobots.txt fetched once per site for the whole fleet: %s\n", verdict(once, "no"))
	fmt.Fprintf(w, "blocked URLs that reached a server: %d of %d\n", onWire, nblocked)
	fmt.Fprintf(w, "crawl took %.1f s; %d Redis keys of the run deleted\n", r.Took.Seconds(), r.Removed)
	if r.ok() {
		fmt.Fprintln(w, "ok: every check passed")
	} else {
		fmt.Fprintln(w, "FAILED: see above")
	}
}

// verdict returns "yes" when ok, else what went wrong.
func verdict(ok bool, otherwise string) string {
	if ok {
		return "yes"
	}
	return otherwise
}
