package redisbackend

// The fleet-wide purge across processes: one worker process calls
// Extension.Forget, another, crawling through the same real Redis, stops
// obeying its near-cached robots.txt within a few seconds. Both are the
// test binary started again (TestForgetWorkerProcess), as in
// multiproc_test.go; the site records, by the one clock of this machine,
// when each request arrived.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/redis/go-redis/v9"
	"github.com/robotsext/robotsext"
)

// envForgetRole makes the test binary a worker of the purge test:
// "forget" or "watch" (see TestForgetWorkerProcess).
const envForgetRole = "REDISBACKEND_TEST_FORGET_ROLE"

// forgetPropagationMax is how soon the other worker must drop its copy:
// "within a few seconds" (robotsext reads the purge log every 2 s while
// requests flow).
const forgetPropagationMax = 5 * time.Second

// purgeSite serves a robots.txt the test can change and records when each
// request arrived, and from which worker (its User-Agent).
type purgeSite struct {
	*httptest.Server

	mu       sync.Mutex
	robots   string
	arrivals []arrival
}

func newPurgeSite(t *testing.T, robots string) *purgeSite {
	t.Helper()
	s := &purgeSite{robots: robots}
	s.Server = httptest.NewServer(s)
	t.Cleanup(s.Close)
	return s
}

func (s *purgeSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.arrivals = append(s.arrivals, arrival{at: time.Now(), path: r.URL.Path, worker: workerOf(r.UserAgent())})
	body := s.robots
	s.mu.Unlock()
	if r.URL.Path == "/robots.txt" {
		fmt.Fprint(w, body)
		return
	}
	fmt.Fprintf(w, "<html><body>%s</body></html>", r.URL.Path)
}

func (s *purgeSite) setRobots(body string) {
	s.mu.Lock()
	s.robots = body
	s.mu.Unlock()
}

// first returns the first arrival of worker at path, and how many
// requests for path arrived in all.
func (s *purgeSite) first(worker, path string) (at time.Time, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.arrivals {
		if a.path != path {
			continue
		}
		n++
		if at.IsZero() && (worker == "" || a.worker == worker) {
			at = a.at
		}
	}
	return at, n
}

// roleProcess is a worker process of the purge test, its stdout read a
// line at a time.
type roleProcess struct {
	role   string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	stderr strings.Builder
}

// startRole starts the test binary as the worker role, crawling site
// through the Redis at redisAddr ("unix:/path").
func startRole(t *testing.T, role, redisAddr, site string) *roleProcess {
	t.Helper()
	p := &roleProcess{role: role, lines: make(chan string, 64)}
	p.cmd = exec.Command(os.Args[0], "-test.run=^TestForgetWorkerProcess$")
	p.cmd.Env = append(os.Environ(), envForgetRole+"="+role, envRedis+"="+redisAddr, envSites+"="+site, noRaceExitSleep())
	p.cmd.Stderr = &p.stderr
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		_ = p.cmd.Wait()
	})
	return p
}

// expect returns the fields after prefix of the first line of p that
// starts with it, failing t if none comes within d.
func (p *roleProcess) expect(t *testing.T, prefix string, d time.Duration) []string {
	t.Helper()
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				_ = p.cmd.Wait()
				t.Fatalf("worker %s ended without %q\nstderr:\n%s", p.role, prefix, p.stderr.String())
			}
			if rest, found := strings.CutPrefix(line, prefix); found {
				return strings.Fields(rest)
			}
		case <-timer.C:
			t.Fatalf("worker %s: no %q within %v", p.role, prefix, d)
		}
	}
}

// unixNano parses a time printed as Unix nanoseconds.
func unixNano(t *testing.T, s string) time.Time {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("not a time: %q", s)
	}
	return time.Unix(0, n)
}

// TestForgetAcrossProcesses: two worker processes share a site's
// robots.txt (Disallow: /old) through a real redis-server. The site's
// file changes to Disallow: /new; the "forget" worker calls
// Extension.Forget; the "watch" worker, which keeps asking for /old
// every 20 ms, gets it through within forgetPropagationMax of the
// Forget, by the site's record of its arrivals, and the new robots.txt
// is fetched once for both (two robots.txt requests in the whole run).
// The propagation time is logged.
func TestForgetAcrossProcesses(t *testing.T) {
	srv := startRedisServer(t)
	site := newPurgeSite(t, "User-agent: *\nDisallow: /old\n")
	redisAddr := "unix:" + srv.Sock

	watch := startRole(t, "watch", redisAddr, site.URL)
	watch.expect(t, "ready", 30*time.Second)
	forget := startRole(t, "forget", redisAddr, site.URL)
	forget.expect(t, "ready", 30*time.Second)
	if _, n := site.first("", "/robots.txt"); n != 1 {
		t.Fatalf("%d robots.txt requests before the purge, want 1 for both workers", n)
	}
	// The watcher read its purge cursor at its first request; let it
	// keep asking for /old a while under the old file.
	time.Sleep(500 * time.Millisecond)
	if at, _ := site.first("watch", "/old"); !at.IsZero() {
		t.Fatal("the watcher fetched /old under the file that disallows it")
	}

	site.setRobots("User-agent: *\nDisallow: /new\n")
	if _, err := io.WriteString(forget.stdin, "forget\n"); err != nil {
		t.Fatal(err)
	}
	f := forget.expect(t, "forgot", 10*time.Second)
	if len(f) != 2 {
		t.Fatalf("forget worker printed %q", f)
	}
	forgotAt, forgotDone := unixNano(t, f[0]), unixNano(t, f[1])
	if a := forget.expect(t, "after", 10*time.Second); len(a) != 1 || a[0] != "true" {
		t.Errorf("the forget worker's /old after its Forget: allowed %q, want true", a)
	}
	w := watch.expect(t, "allowed", forgetPropagationMax+10*time.Second)

	seen, _ := site.first("watch", "/old")
	if seen.IsZero() {
		t.Fatalf("the watcher reported /old allowed (%q) but the site never saw it", w)
	}
	took := seen.Sub(forgotAt)
	t.Logf("Forget took %v in the forget worker; the watch worker's first /old reached the site %v after Forget began (purge poll 2 s); it counted %s requests blocked by the old file",
		forgotDone.Sub(forgotAt).Round(time.Microsecond), took.Round(time.Millisecond), w[1])
	if took < 0 {
		t.Errorf("the watcher fetched /old %v before Forget began", -took)
	}
	if took > forgetPropagationMax {
		t.Errorf("the watcher kept its near-cached robots.txt %v after Forget, want at most %v", took, forgetPropagationMax)
	}
	if _, n := site.first("", "/robots.txt"); n != 2 {
		t.Errorf("%d robots.txt requests in all, want 2 (once before the purge and once after it, for the fleet)", n)
	}
}

// TestForgetWorkerProcess is a worker of TestForgetAcrossProcesses when
// the test binary is started with envForgetRole set, and skipped
// otherwise. Both roles crawl the site in envSites through the Redis in
// envRedis with a sync Colly collector, ask for /old once under the first
// file and print "ready". The forget worker then waits for a line on
// stdin, calls Forget, prints "forgot START END" (Unix nanoseconds) and
// asks for /old again ("after"). The watch worker asks for /old every
// 20 ms until a response comes and prints "allowed TIME BLOCKED".
func TestForgetWorkerProcess(t *testing.T) {
	role := os.Getenv(envForgetRole)
	if role == "" {
		t.Skip("a worker of TestForgetAcrossProcesses")
	}
	network, addr, _ := strings.Cut(os.Getenv(envRedis), ":")
	o := clientOptions(network, addr)
	o.DialTimeout, o.ReadTimeout, o.WriteTimeout = 2*time.Second, 2*time.Second, 2*time.Second
	client := redis.NewClient(o)
	defer client.Close()
	b := New(client, WithTimeout(2*time.Second), WithWorkerID(role))
	defer b.Close(context.Background())

	c := colly.NewCollector(colly.UserAgent("fleetbot/1.0 (worker " + role + ")"))
	ext := robotsext.Apply(c, robotsext.WithBackend(b))
	var got time.Time
	var blocked int
	c.OnResponse(func(*colly.Response) { got = time.Now() })
	ext.OnBlocked(func(*colly.Request, robotsext.Verdict) { blocked++ })
	site := os.Getenv(envSites)
	visit := func(n int) {
		if err := c.Visit(fmt.Sprintf("%s/old?n=%d", site, n)); err != nil {
			t.Errorf("visit %d: %v", n, err)
		}
	}
	visit(0)
	if blocked != 1 {
		t.Fatalf("worker %s: /old was not blocked by the first file", role)
	}
	fmt.Println("ready")

	switch role {
	case "forget":
		if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if err := ext.Forget(context.Background(), site+"/"); err != nil {
			t.Fatal(err)
		}
		fmt.Printf("forgot %d %d\n", start.UnixNano(), time.Now().UnixNano())
		visit(1)
		fmt.Printf("after %v\n", !got.IsZero())
	case "watch":
		deadline := time.Now().Add(time.Minute)
		for n := 1; got.IsZero() && time.Now().Before(deadline); n++ {
			visit(n)
			if got.IsZero() {
				time.Sleep(20 * time.Millisecond)
			}
		}
		if got.IsZero() {
			t.Fatal("the watch worker never got /old through")
		}
		fmt.Printf("allowed %d %d\n", got.UnixNano(), blocked)
	}
}
