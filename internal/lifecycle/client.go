package lifecycle

// This file holds the rules of the robots.txt request itself: the
// transport, the redirects it follows, the headers it carries (to which
// hosts) and the errors that are this machine's rather than the site's.

import (
	"errors"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"
)

// newTransport clones http.DefaultTransport (proxy from the environment,
// HTTP/2, dial timeouts) and bounds the handshake and the wait for headers.
func newTransport(timeout time.Duration) *http.Transport {
	var t *http.Transport
	if dt, ok := http.DefaultTransport.(*http.Transport); ok {
		t = dt.Clone()
	} else { // replaced by a test double; start from sane settings
		t = &http.Transport{
			Proxy:               http.ProxyFromEnvironment,
			DialContext:         (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			ForceAttemptHTTP2:   true,
			MaxIdleConns:        100,
			IdleConnTimeout:     90 * time.Second,
			TLSHandshakeTimeout: 10 * time.Second,
		}
	}
	t.ResponseHeaderTimeout = max(timeout, 0)
	t.MaxResponseHeaderBytes = 64 << 10
	return t
}

// baseTransport sends each request through the transport it returns as
// the request starts, http.DefaultTransport when that is nil
// (FetcherConfig.Base).
type baseTransport func() http.RoundTripper

// RoundTrip implements http.RoundTripper.
func (b baseTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t := b(); t != nil {
		return t.RoundTrip(req)
	}
	return http.DefaultTransport.RoundTrip(req)
}

// keptAcrossHosts reports whether a robots.txt request carries header k
// to another host after a redirect: only User-Agent, Accept,
// Accept-Language and From go. Everything else, Authorization, Cookie and
// any custom credential header, stays with the host it was meant for.
func keptAcrossHosts(k string) bool {
	switch k {
	case "User-Agent", "Accept", "Accept-Language", "From":
		return true
	}
	return false
}

// checkRedirect is the CheckRedirect of robots.txt requests.
func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > f.cfg.MaxRedirects {
		return f.cfg.Errors.TooManyRedirects
	}
	if s := req.URL.Scheme; !strings.EqualFold(s, "http") && !strings.EqualFold(s, "https") {
		return f.cfg.Errors.RedirectNotHTTP
	}
	if !strings.EqualFold(req.URL.Host, via[0].URL.Host) {
		kept := http.Header{}
		for k, vs := range req.Header {
			if keptAcrossHosts(k) && len(vs) > 0 {
				kept[k] = vs
			}
		}
		req.Header = kept
		req.Host = ""
	}
	return nil
}

// isLocal reports errors of this machine rather than of the site:
// descriptors, buffers, memory or local ports exhausted, and those
// FetcherConfig.IsLocal names.
func (f *Fetcher) isLocal(err error) bool {
	for _, errno := range [...]syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM, syscall.EADDRNOTAVAIL} {
		if errors.Is(err, errno) {
			return true
		}
	}
	return f.cfg.IsLocal != nil && f.cfg.IsLocal(err)
}

// managed lists the request headers the fetch sets itself.
func managed() [9]string {
	return [...]string{"If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range", "Accept-Encoding", "Content-Length", "Content-Type"}
}

// Managed reports whether the fetch sets header k itself, so that a value
// given for it is not sent.
func Managed(k string) bool {
	k = http.CanonicalHeaderKey(k)
	for _, m := range managed() {
		if k == m {
			return true
		}
	}
	return false
}

// RequestHeader returns a copy of h, never nil, without the headers the
// fetch sets itself: a header Fetch may use as its own.
func RequestHeader(h http.Header) http.Header {
	c := h.Clone()
	if c == nil {
		c = http.Header{}
	}
	for _, k := range managed() {
		c.Del(k)
	}
	return c
}
