package pagecache

import (
	"net/http"
	"testing"
)

// The layout of Colly v2's collector that Fronts reads: Collector.backend
// (a pointer) .Client (an *http.Client) .Transport.
type fakeCollector struct{ backend *fakeBackend }
type fakeBackend struct{ Client *http.Client }

// TestFronts: a collector sends through the cache when its client's
// transport is a Transport of that cache; any other transport is not, and
// a value of another layout is unknown.
func TestFronts(t *testing.T) {
	t.Parallel()
	c, other := New(Config{Store: &Memory{}}), New(Config{Store: &Memory{}})
	with := func(rt http.RoundTripper) *fakeCollector {
		return &fakeCollector{backend: &fakeBackend{Client: &http.Client{Transport: rt}}}
	}
	for _, tt := range []struct {
		name          string
		collector     any
		fronts, known bool
	}{
		{"its Transport", with(&Transport{Cache: c}), true, true},
		{"another cache's", with(&Transport{Cache: other}), false, true},
		{"an http.Transport", with(&http.Transport{}), false, true},
		{"no transport", with(nil), false, true},
		{"another layout", &struct{ x int }{}, false, false},
		{"nil", nil, false, false},
		{"no backend", &fakeCollector{}, false, false},
	} {
		if fronts, known := c.Fronts(tt.collector); fronts != tt.fronts || known != tt.known {
			t.Errorf("%s: Fronts = %v, %v; want %v, %v", tt.name, fronts, known, tt.fronts, tt.known)
		}
	}
}

// TestCollectorTransport: the transport a collector has is read for the
// cache to wrap (a proxy set before Apply stays in use); a Transport of a
// cache is unwrapped to its Next, so that a collector attached twice is
// cached once; no transport, or another layout, is nil.
func TestCollectorTransport(t *testing.T) {
	t.Parallel()
	own := &http.Transport{}
	with := func(rt http.RoundTripper) *fakeCollector {
		return &fakeCollector{backend: &fakeBackend{Client: &http.Client{Transport: rt}}}
	}
	for _, tt := range []struct {
		name      string
		collector any
		want      http.RoundTripper
	}{
		{"its own transport", with(own), own},
		{"a cache's Transport", with(&Transport{Cache: New(Config{Store: &Memory{}}), Next: own}), own},
		{"no transport", with(nil), nil},
		{"another layout", &struct{ x int }{}, nil},
		{"nil", nil, nil},
	} {
		if got := CollectorTransport(tt.collector); got != tt.want {
			t.Errorf("%s: CollectorTransport = %v, want %v", tt.name, got, tt.want)
		}
	}
}
