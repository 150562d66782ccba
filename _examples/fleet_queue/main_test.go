package main

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/gocolly/colly/v2"
)

// spawnInProcess runs the workers as goroutines, each with a Redis client,
// a Backend, a collector and an Extension of its own: all they share is
// Redis, as worker processes would.
func spawnInProcess(ctx context.Context, n int, addr, prefix string, callTimeout time.Duration) error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			rdb := newClient(addr)
			defer rdb.Close()
			errs[i] = runWorker(ctx, rdb, prefix, strconv.Itoa(i+1), n, callTimeout)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// TestFleet runs the example with three in-process workers over miniredis
// and a paced site of 4 pages, 500 ms apart.
func TestFleet(t *testing.T) {
	const delay = 500 * time.Millisecond
	rep, err := run(config{Workers: 3, PacedPages: 4, Delay: delay, Timeout: 30 * time.Second, Spawn: spawnInProcess})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	rep.print(&out)
	t.Log("\n" + out.String())

	var blockedPaths []string
	for _, s := range rep.Sites {
		if s.Robots != 1 {
			t.Errorf("%s: robots.txt requested %d times by the fleet, want 1", s.Name, s.Robots)
		}
		if s.Reached != 0 {
			t.Errorf("%s: %d blocked URLs reached the server", s.Name, s.Reached)
		}
		if s.Pages != s.Has {
			t.Errorf("%s: %d page requests for %d pages, want each page once", s.Name, s.Pages, s.Has)
		}
		for _, b := range s.Blocked {
			blockedPaths = append(blockedPaths, s.Name+" "+strings.TrimPrefix(b.URL, s.URL))
		}
	}
	slices.Sort(blockedPaths)
	if want := []string{"shop /private/cart", "shop /private/orders"}; !slices.Equal(blockedPaths, want) {
		t.Errorf("blocked %q, want %q", blockedPaths, want)
	}

	news := rep.Sites[0]
	if news.Delay != delay || !news.HasGap {
		t.Fatalf("news: delay %v, %d pages; want the paced site first with several pages", news.Delay, news.Pages)
	}
	if least := delay * 9 / 10; news.Gap < least {
		t.Errorf("news: smallest gap between page requests %v, want at least %v (0.9 × Crawl-delay)", news.Gap, least)
	}

	claimed := 0
	for _, w := range rep.Workers {
		claimed += w.Claimed
	}
	// 4 news pages, 6 shop pages and 2 private shop URLs, 7 blog pages.
	if claimed != 19 || rep.Queued != 19 {
		t.Errorf("%d URLs claimed, %d queued; want 19 of each", claimed, rep.Queued)
	}
	if !rep.ok() {
		t.Error("the report says FAILED")
	}
	if rep.Removed == 0 {
		t.Error("no Redis key of the run was deleted")
	}
}

// TestFrontierEnds walks the frontier's protocol: the crawl is over only
// when the list is empty and no claimed URL is still being fetched.
func TestFrontierEnds(t *testing.T) {
	m := miniredis.RunT(t)
	rdb := newClient(m.Addr())
	defer rdb.Close()
	q := newFrontier(rdb, "test:")
	ctx := t.Context()

	mustPush := func(u string, want bool) {
		t.Helper()
		if got, err := q.push(ctx, u); err != nil || got != want {
			t.Fatalf("push(%s) = %v, %v; want %v", u, got, err, want)
		}
	}
	mustClaim := func(wantURL string, want claimState) {
		t.Helper()
		if u, st, err := q.claim(ctx); err != nil || u != wantURL || st != want {
			t.Fatalf("claim() = %q, %v, %v; want %q, %v", u, st, err, wantURL, want)
		}
	}
	mustRelease := func() {
		t.Helper()
		if err := q.complete(ctx); err != nil {
			t.Fatal(err)
		}
	}

	mustPush("http://a.test/", true)
	mustPush("http://a.test/", false) // a URL is queued once
	mustClaim("http://a.test/", claimed)
	mustClaim("", drained) // the page of a.test/ may still hold links
	mustPush("http://a.test/next", true)
	mustPush("http://a.test/", false) // claimed URLs stay visited
	mustRelease()
	mustClaim("http://a.test/next", claimed)
	mustRelease()
	mustClaim("", finished)
	mustClaim("", finished) // and for every worker that asks after

	if n, err := q.queued(ctx); err != nil || n != 2 {
		t.Errorf("queued() = %d, %v; want 2", n, err)
	}
}

// TestSettleReleasesLeftClaims checks the backstop: a claim whose request
// ended without a callback is completed once the collector is idle, so
// that the fleet does not wait for it forever.
func TestSettleReleasesLeftClaims(t *testing.T) {
	m := miniredis.RunT(t)
	rdb := newClient(m.Addr())
	defer rdb.Close()
	q := newFrontier(rdb, "test:")
	ctx := t.Context()

	if _, err := q.push(ctx, "http://a.test/"); err != nil {
		t.Fatal(err)
	}
	u, _, err := q.claim(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w := &worker{
		id:    "1",
		ctx:   ctx,
		q:     q,
		c:     colly.NewCollector(colly.Async(true)),
		slots: make(chan struct{}, parallelism),
		open:  map[string]bool{u: true}, // claimed, and no request will ever end it
		res:   workerResult{ID: "1"},
	}
	w.slots <- struct{}{}
	if _, st, _ := q.claim(ctx); st != drained {
		t.Fatalf("before settle: claim says %v, want drained", st)
	}

	w.settle()

	if _, st, err := q.claim(ctx); err != nil || st != finished {
		t.Errorf("after settle: claim says %v, %v; want finished", st, err)
	}
	if len(w.open) != 0 || len(w.slots) != 0 {
		t.Errorf("after settle: %d claims open, %d slots taken; want none", len(w.open), len(w.slots))
	}
	w.complete(u) // a late callback completes nothing twice
	if n, err := rdb.Get(ctx, q.keys[2]).Int(); err != nil || n != 0 {
		t.Errorf("in flight after a late complete: %d, %v; want 0", n, err)
	}
}
