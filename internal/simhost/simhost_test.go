package simhost

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestServer asks a few hosts of a small server for robots.txt and pages
// through its transport, and checks the answers and the report.
func TestServer(t *testing.T) {
	t.Parallel()
	specs := []Spec{
		{Robots: Silent, Pages: 2},
		{Robots: Delay, Delay: 2 * time.Second, Pages: 1},
		{Robots: NotFound, Pages: 1},
		{Robots: ServerError, Pages: 1},
		{Robots: Hang, Pages: 1},
		{Robots: Big, Pages: 1},
	}
	s := New(len(specs), func(i int) Spec { return specs[i] })
	defer s.Close()
	cl := &http.Client{Transport: s.Transport()}
	get := func(url string) (int, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond) // only the hanging host takes it
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := cl.Do(req)
		if err != nil {
			return 0, ""
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	tests := []struct {
		url    string
		status int
		has    string
	}{
		{"http://" + Name(0) + "/robots.txt", 200, "Disallow: /private/"},
		{"http://" + Name(1) + "/robots.txt", 200, "Crawl-delay: 2"},
		{"http://" + Name(2) + "/robots.txt", 404, ""},
		{"http://" + Name(3) + "/robots.txt", 500, ""},
		{"http://" + Name(4) + "/robots.txt", 0, ""},
		{"http://" + Name(5) + "/robots.txt", 200, "Allow: /archive/"},
		{URL(0, 0), 200, `href="/p/1"`},
		{URL(0, 1), 200, "<html>"},
		{URL(0, 2), 404, ""},
	}
	for _, tt := range tests {
		status, body := get(tt.url)
		if status != tt.status || !strings.Contains(body, tt.has) {
			t.Errorf("GET %s: %d, %d bytes; want %d with %q", tt.url, status, len(body), tt.status, tt.has)
		}
	}
	if _, body := get(URL(0, 0)); len(body) < 5<<10 || len(body) > 21<<10 {
		t.Errorf("a page of %d bytes, want 5–20 KB", len(body))
	}
	rp := s.Report(func(int) time.Duration { return time.Hour })
	if rp.RobotsFetches != 6 || rp.RobotsHosts != 6 || rp.Pages != 3 || rp.GapsBelow != 2 {
		t.Errorf("report %+v, want 6 robots.txt fetches of 6 hosts, 3 pages (page 0 twice), 2 gaps below an hour", rp)
	}
	if n := s.RobotsDoneBy(time.Hour); n != 5 {
		t.Errorf("%d robots.txt answered, want 5 (not the hanging one)", n)
	}
}

// TestMix checks the shares of the mix over 10,000 hosts.
func TestMix(t *testing.T) {
	t.Parallel()
	n := map[Robots]int{}
	for i := range 10000 {
		n[Mix(i).Robots]++
	}
	want := map[Robots][2]int{Silent: {7700, 8300}, Delay: {850, 1150}, NotFound: {300, 500},
		ServerError: {130, 270}, Slow: {80, 170}, Hang: {80, 170}, Big: {100, 200}}
	for r, w := range want {
		if n[r] < w[0] || n[r] > w[1] {
			t.Errorf("%v: %d of 10,000 hosts, want %d–%d", r, n[r], w[0], w[1])
		}
	}
}
