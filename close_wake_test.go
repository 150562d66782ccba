package robotsext

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
)

// TestCloseWakesWaits closes the Extension while requests wait in it —
// for robots.txt, for tdmrep.json, for their host's Crawl-delay, for
// their host's back-off — and holds Close to its promise: every waiting
// request wakes at once and is refused with ErrClosed (ReasonClosed),
// none reaches the server after Close, and Collector.Wait returns. The
// waits never end on their own (a file whose request never answers, a
// clock whose long sleeps end only with their context), so before Close
// woke them every row hung until the test's bound, and the robots.txt
// row sent its pages once the file came.
func TestCloseWakesWaits(t *testing.T) {
	t.Parallel()
	const pages = 4
	tests := []struct {
		name   string
		robots string   // robots.txt; "" never answers (until its request ends)
		stall  string   // a path that never answers, but for its request's end
		first  string   // a page answered before the others, synchronously
		status int      // first's status
		opts   []Option // beside the clock
		sent   int      // pages that reach the server (first's included)
	}{
		{name: "robots.txt"},
		{name: "tdmrep.json", robots: "User-agent: *\nAllow: /\nCrawl-delay: 0\n", stall: "/.well-known/tdmrep.json",
			opts: []Option{WithPurpose(PurposeTrainAI), WithDefaultDelay(0)}},
		{name: "pace", robots: "User-agent: *\nAllow: /\nCrawl-delay: 30\n"}, // robots.txt's request was the host's first
		{name: "backoff", robots: "User-agent: *\nAllow: /\nCrawl-delay: 0\n", first: "/first", status: http.StatusServiceUnavailable,
			opts: []Option{WithBackoffWait(time.Hour), WithDefaultDelay(0)}, sent: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			release := make(chan struct{})
			stall := func(w http.ResponseWriter, r *http.Request) {
				select { // Close ends the Extension's request; release, a test that failed
				case <-r.Context().Done():
				case <-release:
				}
			}
			robots := stall
			if tt.robots != "" {
				robots = robotsTxt(tt.robots)
			}
			s := newSite(t, robots)
			t.Cleanup(func() { close(release) }) // before the server closes
			if tt.stall != "" {
				s.route(tt.stall, stall)
			}
			if tt.status != 0 {
				s.route(tt.first, func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Retry-After", "600")
					w.WriteHeader(tt.status)
				})
			}
			asleep := make(chan struct{}, 1)
			sleep := func(ctx context.Context, d time.Duration) error {
				if d < time.Second {
					return nil
				}
				select { // a wait of the subject's: it ends only with ctx
				case asleep <- struct{}{}:
				default:
				}
				<-ctx.Done()
				return ctx.Err()
			}
			c := colly.NewCollector(colly.UserAgent(closeUA), colly.Async(true))
			ext := Apply(c, append([]Option{quiet(), withSleep(sleep)}, tt.opts...)...)
			var log blockLog
			ext.OnBlocked(log.record)
			if tt.first != "" {
				_ = c.Visit(s.URL + tt.first)
				c.Wait()
			}
			for i := range pages {
				_ = c.Visit(fmt.Sprintf("%s/page%d", s.URL, i))
			}
			waiting(t, s, tt.robots == "", tt.stall, asleep)
			if err := ext.Close(); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			go func() { c.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second): // a bound only a hang reaches; nothing is timed
				t.Fatalf("Collector.Wait had not returned 10 s after Close; pages sent: %v", pagesSeen(s))
			}
			if got := pagesSeen(s); len(got) != tt.sent {
				t.Errorf("pages sent: %v; want %d (none after Close)", got, tt.sent)
			}
			var closed int
			_, vs := log.get()
			for _, v := range vs {
				if v.Reason == ReasonClosed && errors.Is(v.Err, ErrClosed) && v.RetryAt.IsZero() {
					closed++
				}
			}
			if closed != pages {
				t.Errorf("OnBlocked saw %+v; want %d refusals for ErrClosed", vs, pages)
			}
		})
	}
}

// waiting returns once requests wait in the Extension: robots.txt's
// request arrived (robots), stall's did, or a wait of the clock began.
func waiting(t *testing.T, s *site, robots bool, stall string, asleep <-chan struct{}) {
	t.Helper()
	bound := time.After(10 * time.Second) // a bound only a hang reaches; nothing is timed
	if robots || stall != "" {
		for !(robots && s.robotsHits.Load() > 0 || stall != "" && s.saw("GET "+stall)) {
			select {
			case <-time.After(time.Millisecond): // polls for the request's arrival; measures nothing
			case <-bound:
				t.Fatal("no request waits in the Extension")
			}
		}
		return
	}
	select {
	case <-asleep:
	case <-bound:
		t.Fatal("no request waits in the Extension")
	}
}

// pagesSeen returns the page requests s saw: tdmrep.json's aside.
func pagesSeen(s *site) []string {
	var got []string
	for _, r := range s.seen() {
		if !strings.Contains(r, "/.well-known/") {
			got = append(got, r)
		}
	}
	return got
}
