package pagecache

// This file is the Transport: it serves claimed and fresh entries without
// sending anything, revalidates stale ones (If-None-Match,
// If-Modified-Since), turns a 304 into the stored 200, and stores what may
// be stored.

import (
	"bytes"
	"context"
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
	// Pace, when set, is called for a claimed request the Transport may
	// not serve after all (as sent, its header no longer matches the
	// claimed entry), with the owner given to Claim, before it is sent:
	// the request skipped its host's pace for the claim, and waits for it
	// there. It is called with a nil owner before a request is sent again
	// unconditionally after a 304 that matched no stored response: the
	// 304 was the host's answer, and the request waits for its pace anew.
	// An error fails the request unsent.
	Pace func(req *http.Request, owner any) error
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
	if cl, ok := c.take(req.URL); ok {
		if c.Usable(cl.e, req.Method, req.Header) {
			return c.serve(cl.e, req, Hit), nil
		}
		if t.Pace != nil {
			if err := t.Pace(req, cl.owner); err != nil {
				return nil, err
			}
		}
	}
	if !safe(req.Method) {
		resp, err := t.send(req, None)
		if err == nil {
			c.invalidate(req, resp)
		}
		return resp, err
	}
	if !Cacheable(req.Method, req.Header) {
		return t.send(req, None)
	}
	key := Key(req.Method, req.URL)
	e, fresh := c.Lookup(req.Context(), req.Method, req.URL, req.Header)
	var own *flight // the flight this request leads; nil when it leads none
	for !fresh {    // one request of a key at a time: the others wait for its entry
		wait, mine := c.join(key)
		if own = mine; wait == nil {
			break
		}
		kept, err := waitFlight(req.Context(), wait)
		if err != nil {
			return nil, err
		}
		if e, fresh = c.Lookup(req.Context(), req.Method, req.URL, req.Header); !kept {
			break // nothing was stored: go out now, beside the others
		}
	}
	if fresh {
		return c.serve(e, req, Hit), nil
	}
	resp, validated, sent, got, err := t.exchange(req, e)
	if err != nil {
		c.land(key, own, false)
		return resp, err
	}
	if validated {
		defer c.land(key, own, true)
		return c.freshen(e, resp, req, sent, got), nil
	}
	return t.answer(key, own, e, req, resp, sent, got), nil
}

// exchange sends req, conditional on e's validators when e is stored. A
// 304 whose validators match no stored response may not update it
// (RFC 9111 §4.3.4): req is then sent again unconditionally. validated
// reports a 304 that matched e (its body was read and closed).
func (t *Transport) exchange(req *http.Request, e *Entry) (resp *http.Response, validated bool, sent, got time.Time, err error) {
	c := t.Cache
	out := req
	if e != nil {
		etag, lm := e.Header.Get("ETag"), e.Header.Get("Last-Modified")
		if etag != "" || lm != "" {
			out = req.Clone(req.Context()) // the caller's header is never changed
			if etag != "" {
				out.Header.Set("If-None-Match", etag)
			}
			if lm != "" {
				out.Header.Set("If-Modified-Since", lm)
			}
		}
	}
	sent = c.now()
	resp, err = t.next().RoundTrip(out)
	if err == nil && out != req {
		// The answer is to the caller's request: Colly takes a response's
		// Request of another URL pointer for a redirect's, and would hand
		// the callbacks (and a Retry) the clone's conditional header.
		resp.Request = req
	}
	if err != nil || out == req || resp.StatusCode != http.StatusNotModified {
		return resp, false, sent, c.now(), err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if Matches(e, resp.Header) {
		return resp, true, sent, c.now(), nil
	}
	// The stored copy is not the origin's any more: it is dropped (a
	// request deferred by Pace, sent again later, is then a plain miss).
	_ = c.store.Delete(req.Context(), Key(req.Method, req.URL))
	if t.Pace != nil {
		if err := t.Pace(req, nil); err != nil {
			return nil, false, sent, c.now(), err
		}
	}
	sent = c.now()
	resp, err = t.next().RoundTrip(req)
	return resp, false, sent, c.now(), err
}

// answer handles a full response to a cacheable request: it is stored
// while the caller reads its body, when it may be; a stored copy it
// replaces is dropped, one an error answered (a 5xx, a 429) is kept.
func (t *Transport) answer(key string, own *flight, e *Entry, req *http.Request, resp *http.Response, sent, got time.Time) *http.Response {
	c := t.Cache
	result := Miss
	if e != nil {
		result = Stale
	}
	if Storable(req.Method, resp.StatusCode, resp.Header, ParseCacheControl(req.Header)) {
		t.storing(key, own, req, resp, sent, got)
	} else {
		if e != nil && (resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests) {
			result = None // the origin did not answer for the page: its stored copy stays
		} else if e != nil {
			_ = c.store.Delete(req.Context(), key) // replaced by a response that may not be stored
		}
		c.land(key, own, false)
	}
	c.count(result, 0)
	resp.Header.Set(StatusHeader, result.String())
	return resp
}

// FirstHop returns the first request of req's redirect chain (req itself
// when it is not a redirect hop).
func FirstHop(req *http.Request) *http.Request {
	for req.Response != nil && req.Response.Request != nil {
		req = req.Response.Request
	}
	return req
}

// FromCache reports whether resp was a fresh hit of a Transport: nothing
// was sent for it.
func FromCache(resp *http.Response) bool {
	return resp != nil && resp.Header.Get(StatusHeader) == Hit.String()
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

// storing makes resp's body store the response once the caller has read
// it to the end (a body over the Cache's MaxEntry, or one closed early, is
// not stored): what the caller does not read is not downloaded.
func (t *Transport) storing(key string, own *flight, req *http.Request, resp *http.Response, sent, got time.Time) {
	c := t.Cache
	e := &Entry{Method: req.Method, URL: key[len(req.Method)+1:], Status: resp.StatusCode, Header: storedHeader(resp.Header),
		Vary: VaryValues(resp.Header, req.Header), Uncompressed: resp.Uncompressed, RequestTime: sent, ResponseTime: got}
	ctx := req.Context()
	resp.Body = &storingBody{rc: resp.Body, max: c.maxEntry, done: func(body []byte, whole bool) {
		if whole {
			e.Body = body
			c.put(ctx, key, e)
		}
		c.land(key, own, whole)
	}}
}

// put encodes and stores e.
func (c *Cache) put(ctx context.Context, key string, e *Entry) {
	b, err := e.Encode()
	if err == nil {
		err = c.store.Set(context.WithoutCancel(ctx), key, b)
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
		c.put(req.Context(), key, e)
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
