package main

import (
	"context"
	"encoding/json"
	"log"
	"net/http"
	"sync"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/redis/go-redis/v9"
	"github.com/robotsext/robotsext"
	"github.com/robotsext/robotsext/redisbackend"
)

// parallelism is each worker's LimitRule Parallelism, and the most URLs a
// worker has claimed at once, so that the first worker up does not take
// the whole frontier.
const parallelism = 8

// claimKey is the colly.Context key under which a request carries the
// frontier URL it was claimed as.
const claimKey = "fleet_queue.claim"

// pollEvery is how long a worker waits before asking again when the
// frontier is empty but other URLs are still being fetched.
const pollEvery = 50 * time.Millisecond

// workerResult is what one worker did. The worker stores it in the
// frontier's results hash when it stops; the parent reads it for the
// report.
type workerResult struct {
	ID      string
	Claimed int       // URLs taken from the frontier
	Pages   int       // pages fetched (responses)
	Failed  int       // requests that ended in an error (none in the demo)
	Blocked []blocked // URLs robots.txt blocked, as OnBlocked reported them
	Links   int       // links found on its pages
	New     int       // of those, URLs no worker had queued before (SADD answered 1)
	Robots  uint64    // robots.txt fetches this worker made itself
	// BackendErrors counts the backend's Redis calls that failed (an
	// error, or no answer within the call timeout); after each the worker
	// fetched and paced on its own for a while.
	BackendErrors uint64
}

// blocked is one URL robots.txt blocked.
type blocked struct {
	URL    string
	Reason string // Verdict.Reason
	Line   int    // the deciding rule's line in robots.txt
	Rule   string // the deciding rule's pattern
}

// worker is one crawler of the fleet: an Async collector with its own
// Extension, fed from the shared frontier instead of calling Visit on the
// links it finds.
type worker struct {
	id    string
	ctx   context.Context // the run's; its deadline stops the worker
	q     *frontier
	c     *colly.Collector
	slots chan struct{} // one token per URL claimed; parallelism of them

	mu   sync.Mutex
	open map[string]bool // URLs claimed whose requests have not ended; guarded by mu
	res  workerResult    // guarded by mu
	err  error           // the first Redis call a callback could not make; guarded by mu
}

// runWorker crawls from the frontier under prefix in rdb until the crawl is
// over (see frontier), sharing robots.txt and each host's pace with the
// other workers through redisbackend, then stores its result. fleetSize is
// the number of workers started; callTimeout bounds each Redis call of the
// backend (0: redisbackend's default).
func runWorker(ctx context.Context, rdb redis.UniversalClient, prefix, id string, fleetSize int, callTimeout time.Duration) error {
	be := redisbackend.New(rdb,
		redisbackend.WithPrefix(prefix+"robots:"),
		redisbackend.WithTimeout(callTimeout),
		redisbackend.WithFleetSize(fleetSize), // the fallback pace is safe from the first request
		redisbackend.WithWorkerID("worker-"+id),
	)
	defer be.Close(context.WithoutCancel(ctx))

	c := colly.NewCollector(
		colly.Async(true),
		colly.UserAgent("FleetQueueBot/1.0 (worker "+id+")"),
		colly.StdlibContext(ctx),
	)
	if err := c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: parallelism}); err != nil {
		return err
	}
	ext := robotsext.Apply(c, robotsext.WithBackend(be))

	w := &worker{
		id:    id,
		ctx:   ctx,
		q:     newFrontier(rdb, prefix),
		c:     c,
		slots: make(chan struct{}, parallelism),
		open:  map[string]bool{},
		res:   workerResult{ID: id},
	}
	// A claim ends with its request: OnScraped runs after OnHTML has pushed
	// the page's links, OnError after a failure, OnBlocked when robots.txt
	// refused it (Colly then runs no other callback).
	c.OnHTML("a[href]", w.onLink)
	c.OnResponse(func(*colly.Response) { w.count(func(r *workerResult) { r.Pages++ }) })
	c.OnScraped(func(r *colly.Response) { w.complete(r.Request.Ctx.Get(claimKey)) })
	c.OnError(func(r *colly.Response, _ error) {
		w.count(func(r *workerResult) { r.Failed++ })
		w.complete(r.Request.Ctx.Get(claimKey))
	})
	ext.OnBlocked(func(r *colly.Request, v robotsext.Verdict) {
		w.count(func(res *workerResult) {
			res.Blocked = append(res.Blocked, blocked{r.URL.String(), v.Reason.String(), v.Line, v.Rule})
		})
		// A redirect hop's request carries a fresh Ctx and no claim; the
		// request it came from then ends in OnError.
		w.complete(r.Ctx.Get(claimKey))
	})

	err := w.loop()
	c.Wait()
	if err != nil {
		return err
	}

	w.mu.Lock()
	res := w.res
	w.mu.Unlock()
	st := ext.Stats()
	for _, n := range st.Fetches {
		res.Robots += n
	}
	res.BackendErrors = st.BackendErrors
	b, err := json.Marshal(res)
	if err != nil {
		return err
	}
	return rdb.HSet(ctx, w.q.res, id, b).Err()
}

// loop claims URLs and hands them to the collector until the frontier says
// the crawl is over.
func (w *worker) loop() error {
	for {
		if err := w.failed(); err != nil {
			return err
		}
		select {
		case w.slots <- struct{}{}:
		case <-time.After(time.Second):
			// Every slot held for a second: requests waiting for a paced
			// host, or (see settle) one Colly ended without a callback.
			w.settle()
			continue
		case <-w.ctx.Done():
			return w.ctx.Err()
		}
		u, st, err := w.q.claim(w.ctx)
		if err != nil {
			<-w.slots
			return err
		}
		if st == claimed {
			w.visit(u)
			continue
		}
		<-w.slots
		w.settle()
		if st == finished {
			return nil
		}
		select {
		case <-time.After(pollEvery):
		case <-w.ctx.Done():
			return w.ctx.Err()
		}
	}
}

// visit hands a claimed URL to the collector, which fetches it in a
// goroutine of its own.
func (w *worker) visit(u string) {
	w.mu.Lock()
	w.open[u] = true
	w.res.Claimed++
	w.mu.Unlock()
	ctx := colly.NewContext()
	ctx.Put(claimKey, u)
	if err := w.c.Request(http.MethodGet, u, nil, ctx, nil); err != nil {
		// Refused before any callback (a malformed URL, a URL filter).
		log.Printf("worker %s: %s: %v", w.id, u, err)
		w.count(func(r *workerResult) { r.Failed++ })
		w.complete(u)
	}
}

// settle is the backstop of the callbacks: it waits until this worker's
// collector has no request left, then completes every claim still open.
// There should be none, but Colly ends a request without any callback in
// one case (it could not convert a response's charset), and a claim never
// completed would keep the whole fleet waiting.
func (w *worker) settle() {
	w.c.Wait()
	w.mu.Lock()
	var left []string
	for u := range w.open {
		left = append(left, u)
	}
	w.mu.Unlock()
	for _, u := range left {
		log.Printf("worker %s: the request for %s ended without a callback; releasing its claim", w.id, u)
		w.complete(u)
	}
}

// complete ends the claim on u, if this worker has one.
func (w *worker) complete(u string) {
	w.mu.Lock()
	ok := w.open[u]
	delete(w.open, u)
	w.mu.Unlock()
	if !ok {
		return
	}
	<-w.slots
	if err := w.q.complete(w.ctx); err != nil {
		w.fail(err)
	}
}

// onLink queues a link found on a page, unless some worker queued it
// before.
func (w *worker) onLink(e *colly.HTMLElement) {
	u := e.Request.AbsoluteURL(e.Attr("href"))
	if u == "" {
		return
	}
	isNew, err := w.q.push(w.ctx, u)
	if err != nil {
		w.fail(err)
		return
	}
	w.count(func(r *workerResult) {
		r.Links++
		if isNew {
			r.New++
		}
	})
}

// count updates the result under the lock.
func (w *worker) count(fn func(*workerResult)) {
	w.mu.Lock()
	fn(&w.res)
	w.mu.Unlock()
}

// fail records the first Redis call a callback could not make; the loop
// stops at its next turn.
func (w *worker) fail(err error) {
	w.mu.Lock()
	if w.err == nil {
		w.err = err
	}
	w.mu.Unlock()
}

func (w *worker) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}
