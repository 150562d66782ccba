package pagecache

// This file is the Transport: it serves claimed and fresh entries without
// sending anything, revalidates stale ones (If-None-Match,
// If-Modified-Since), turns a 304 into the stored 200, and stores what may
// be stored.

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"time"
)

// Transport is the http.RoundTripper of a Cache, in front of Next (the
// transport that sends). It sets StatusHeader on every response it
// returns.
type Transport struct {
	Cache *Cache
	Next  http.RoundTripper // nil: http.DefaultTransport
}

// notStored are the fields a stored response does not keep (RFC 9111
// §3.1's hop-by-hop fields; Set-Cookie, so that a served copy never sets
// an old cookie again; the cache's own status).
var notStored = [...]string{"Connection", "Keep-Alive", "Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade",
	"Proxy-Authenticate", "Proxy-Authentication-Info", "Set-Cookie", StatusHeader}

// notUpdated are the fields a 304 does not replace in the stored response
// (§3.2 lets a cache keep them; they describe the stored body).
var notUpdated = [...]string{"Content-Length", "Content-Encoding", "Content-Type", "Content-Range"}

// RoundTrip answers req from the cache or through Next.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	c := t.Cache
	if Claimed(req.Header) {
		e, ok := c.take(req.Header)
		delete(req.Header, MarkerHeader)
		if !ok { // the claim was dropped: read the store again, whatever the entry's age
			e, _ = c.Lookup(req.Context(), req.Method, req.URL, req.Header)
		}
		if e == nil {
			return nil, ErrLost
		}
		return c.serve(e, req, Hit), nil
	}
	if !Cacheable(req.Method, req.Header) {
		return t.send(req, None)
	}
	e, fresh := c.Lookup(req.Context(), req.Method, req.URL, req.Header)
	if fresh {
		return c.serve(e, req, Hit), nil
	}
	out := req
	etag, lm := "", ""
	if e != nil {
		etag, lm = e.Header.Get("ETag"), e.Header.Get("Last-Modified")
		if etag != "" || lm != "" {
			out = req.Clone(req.Context())
			if etag != "" {
				out.Header.Set("If-None-Match", etag)
			}
			if lm != "" {
				out.Header.Set("If-Modified-Since", lm)
			}
		}
	}
	sent := c.now()
	resp, err := t.next().RoundTrip(out)
	if err != nil {
		return resp, err
	}
	got := c.now()
	if resp.StatusCode == http.StatusNotModified && out != req {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		return c.freshen(e, resp, req, sent, got), nil
	}
	result := Miss
	if e != nil {
		result = Stale
	}
	key := Key(req.Method, req.URL)
	reqCC := ParseCacheControl(req.Header)
	if Storable(req.Method, resp.StatusCode, resp.Header, reqCC) {
		t.store(key, req, resp, sent, got)
	} else if e != nil && resp.StatusCode == http.StatusOK {
		_ = c.store.Delete(req.Context(), key) // replaced by a response that may not be stored
	}
	c.count(result, 0)
	resp.Header.Set(StatusHeader, result.String())
	return resp, nil
}

// send passes req through Next, marking the response with r.
func (t *Transport) send(req *http.Request, r Result) (*http.Response, error) {
	resp, err := t.next().RoundTrip(req)
	if err == nil {
		resp.Header.Set(StatusHeader, r.String())
	}
	return resp, err
}

func (t *Transport) next() http.RoundTripper {
	if t.Next != nil {
		return t.Next
	}
	return http.DefaultTransport
}

// store reads resp's body (up to the Cache's MaxEntry) and stores it; a
// larger body is passed through unstored. resp.Body is replaced by what
// remains to be read.
func (t *Transport) store(key string, req *http.Request, resp *http.Response, sent, got time.Time) {
	c := t.Cache
	body, err := io.ReadAll(io.LimitReader(resp.Body, c.maxEntry+1))
	if err != nil || int64(len(body)) > c.maxEntry {
		resp.Body = readCloser{io.MultiReader(bytes.NewReader(body), resp.Body), resp.Body}
		return
	}
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	e := &Entry{Method: req.Method, URL: key[len(req.Method)+1:], Status: resp.StatusCode, Header: storedHeader(resp.Header),
		Vary: VaryValues(resp.Header, req.Header), Uncompressed: resp.Uncompressed, RequestTime: sent, ResponseTime: got, Body: body}
	c.put(req, key, e)
}

// put encodes and stores e.
func (c *Cache) put(req *http.Request, key string, e *Entry) {
	b, err := e.Encode()
	if err == nil {
		err = c.store.Set(req.Context(), key, b)
	}
	if err != nil {
		c.storeFailed(err)
	}
}

// freshen applies a 304 to the stored entry e (§4.3.4): its fields
// replace the stored ones, its times become the entry's, and the entry is
// stored again (or deleted, if the 304 now forbids storing) and served.
func (c *Cache) freshen(e *Entry, resp *http.Response, req *http.Request, sent, got time.Time) *http.Response {
	for k, vs := range resp.Header {
		if !excluded(k, notStored[:]) && !excluded(k, notUpdated[:]) {
			e.Header[k] = vs
		}
	}
	e.RequestTime, e.ResponseTime = sent, got
	key := Key(req.Method, req.URL)
	if ParseCacheControl(e.Header).NoStore {
		_ = c.store.Delete(req.Context(), key)
	} else {
		c.put(req, key, e)
	}
	return c.serve(e, req, Revalidated)
}

// serve builds the response of a stored entry.
func (c *Cache) serve(e *Entry, req *http.Request, r Result) *http.Response {
	h := e.Header.Clone()
	if r == Hit {
		h.Set("Age", ageSeconds(Age(e, c.now())))
	}
	h.Set(StatusHeader, r.String())
	var body io.ReadCloser = http.NoBody
	if req.Method != http.MethodHead && len(e.Body) > 0 {
		body = io.NopCloser(bytes.NewReader(e.Body))
	}
	c.count(r, len(e.Body))
	return &http.Response{
		Status: http.StatusText(e.Status), StatusCode: e.Status, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: body, ContentLength: int64(len(e.Body)), Request: req, Uncompressed: e.Uncompressed,
	}
}

// count counts one result and the body bytes it did not download.
func (c *Cache) count(r Result, saved int) {
	switch r {
	case Hit:
		c.hits.Add(1)
	case Revalidated:
		c.revalidated.Add(1)
	case Miss:
		c.misses.Add(1)
	case Stale:
		c.stale.Add(1)
	}
	if r == Hit || r == Revalidated {
		c.saved.Add(uint64(saved))
	}
}

// storedHeader is h without the fields a stored response does not keep.
func storedHeader(h http.Header) http.Header {
	out := make(http.Header, len(h))
	for k, vs := range h {
		if !excluded(k, notStored[:]) {
			out[k] = vs
		}
	}
	for _, f := range h.Values("Connection") { // the fields the Connection field nominates (§3.1)
		for n := range strings.SplitSeq(f, ",") {
			out.Del(strings.TrimSpace(n))
		}
	}
	return out
}

func excluded(k string, list []string) bool {
	for _, n := range list {
		if strings.EqualFold(k, n) {
			return true
		}
	}
	return false
}

// readCloser reads from r and closes c.
type readCloser struct {
	io.Reader
	c io.Closer
}

func (rc readCloser) Close() error { return rc.c.Close() }
