package simhost

// This file is the loopback server that answers for every simulated host,
// and the dialer that routes their names to it.

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Server answers for n simulated hosts, named by Name, host i as spec(i)
// says. Its methods are safe for concurrent use.
type Server struct {
	srv   *httptest.Server
	specs []Spec
	index map[string]int // host name → number
	big   []byte         // the Big robots.txt
	done  chan struct{}  // closed by Close: hanging answers end
	start time.Time
	once  sync.Once // Close's
	dials atomic.Int64

	mu       sync.Mutex
	hosts    []hostLog       // guarded by mu
	robotsAt []time.Duration // when each robots.txt answer was written, since start; guarded by mu
}

// hostLog is what one host saw.
type hostLog struct {
	robots   int             // robots.txt requests
	pages    []time.Duration // arrivals of page requests, since Server.start
	inflight int             // page requests being answered
	maxIn    int             // the most at once
}

// Name is host i's name.
func Name(i int) string { return fmt.Sprintf("h%05d.sim", i) }

// URL is the URL of host i's page p.
func URL(i, p int) string { return fmt.Sprintf("http://%s/p/%d", Name(i), p) }

// New starts a loopback server for n hosts, host i answering as spec(i).
// Close it when done.
func New(n int, spec func(i int) Spec) *Server {
	s := &Server{specs: make([]Spec, n), index: make(map[string]int, n),
		hosts: make([]hostLog, n), done: make(chan struct{}), start: time.Now()}
	for i := range n {
		s.specs[i] = spec(i)
		s.index[Name(i)] = i
	}
	s.big = bigRobots()
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Close ends every hanging answer and stops the server; later calls do
// nothing.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.done)
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
}

// InFlight is the number of page requests being answered now.
func (s *Server) InFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, h := range s.hosts {
		n += h.inflight
	}
	return n
}

// Spec returns host i's Spec.
func (s *Server) Spec(i int) Spec { return s.specs[i] }

// Hosts is the number of hosts.
func (s *Server) Hosts() int { return len(s.specs) }

// DialContext connects to the server whatever the address: every host
// name leads there, and nothing leaves loopback.
func (s *Server) DialContext(ctx context.Context, network, _ string) (net.Conn, error) {
	s.dials.Add(1)
	var d net.Dialer
	return d.DialContext(ctx, network, s.srv.Listener.Addr().String())
}

// Dials is how many connections DialContext has opened.
func (s *Server) Dials() int64 { return s.dials.Load() }

// Transport returns a new transport that dials the server for every host,
// keeping at most one idle connection per host and 2,048 in all.
func (s *Server) Transport() *http.Transport {
	return &http.Transport{DialContext: s.DialContext, MaxIdleConnsPerHost: 1, MaxIdleConns: 2048,
		IdleConnTimeout: 30 * time.Second}
}

// serve answers one request for the host it names.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	at := time.Since(s.start)
	i, ok := s.index[strings.TrimSuffix(hostOnly(r.Host), ".")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	sp := s.specs[i]
	if r.URL.Path == "/robots.txt" {
		s.mu.Lock()
		s.hosts[i].robots++
		s.mu.Unlock()
		if s.serveRobots(w, r, sp) {
			s.mu.Lock()
			s.robotsAt = append(s.robotsAt, time.Since(s.start))
			s.mu.Unlock()
		}
		return
	}
	p, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/p/"))
	if err != nil || !strings.HasPrefix(r.URL.Path, "/p/") || p < 0 || p >= sp.Pages {
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	h := &s.hosts[i]
	h.pages = append(h.pages, at)
	h.inflight++
	h.maxIn = max(h.maxIn, h.inflight)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.hosts[i].inflight--
		s.mu.Unlock()
	}()
	if !s.pause(r.Context(), sp.PageLatency) {
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(page(i, p, len(s.specs), sp.Pages))
}

// serveRobots answers host sp's robots.txt; it reports whether it did
// (a hanging one, or a slow one whose client gave up, did not).
func (s *Server) serveRobots(w http.ResponseWriter, r *http.Request, sp Spec) bool {
	switch sp.Robots {
	case NotFound:
		http.NotFound(w, r)
		return true
	case ServerError:
		http.Error(w, "down", http.StatusInternalServerError)
		return true
	case Hang:
		s.pause(r.Context(), time.Hour)
		return false
	case Slow:
		if !s.pause(r.Context(), sp.RobotsLatency) {
			return false
		}
	case Big:
		_, _ = w.Write(s.big)
		return true
	}
	body := "User-agent: *\nDisallow: /private/\n"
	if sp.Robots == Delay {
		body += fmt.Sprintf("Crawl-delay: %g\n", sp.Delay.Seconds())
	}
	fmt.Fprint(w, body)
	return true
}

// pause waits d, or until the request or the server ends; it reports
// whether d passed.
func (s *Server) pause(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
	case <-s.done:
	}
	return false
}

// hostOnly is a Host header without its port.
func hostOnly(h string) string {
	if host, _, err := net.SplitHostPort(h); err == nil {
		return host
	}
	return h
}
