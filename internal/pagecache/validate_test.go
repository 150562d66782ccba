package pagecache

import (
	"context"
	"net/http"
	"net/url"
	"testing"
)

// TestMatches holds RFC 9111 §4.3.4's rules for a 304: a strong ETag
// updates only the stored response with the same strong ETag; a weak one
// matches by weak comparison; a Last-Modified alone must be the stored
// one; a 304 with no validator updates the stored response.
func TestMatches(t *testing.T) {
	t.Parallel()
	const lm1, lm2 = "Sat, 01 Feb 2025 00:00:00 GMT", "Sun, 02 Feb 2025 00:00:00 GMT"
	for _, tt := range []struct {
		name         string
		stored, resp []string
		want         bool
	}{
		{"same strong ETag", []string{"ETag", `"a"`}, []string{"ETag", `"a"`}, true},
		{"another strong ETag (issue 50, case 1)", []string{"ETag", `"rev1"`, "Last-Modified", lm1}, []string{"ETag", `"rev2"`, "Last-Modified", lm1}, false},
		{"a strong ETag, none stored", []string{"Last-Modified", lm1}, []string{"ETag", `"a"`}, false},
		{"a strong ETag against the weak stored one", []string{"ETag", `W/"a"`}, []string{"ETag", `"a"`}, false},
		{"weak against weak", []string{"ETag", `W/"a"`}, []string{"ETag", `W/"a"`}, true},
		{"weak against strong", []string{"ETag", `"a"`}, []string{"ETag", `W/"a"`}, true},
		{"another weak", []string{"ETag", `W/"a"`}, []string{"ETag", `W/"b"`}, false},
		{"same Last-Modified", []string{"Last-Modified", lm1}, []string{"Last-Modified", lm1}, true},
		{"another Last-Modified", []string{"Last-Modified", lm1}, []string{"Last-Modified", lm2}, false},
		{"no validator", []string{"ETag", `"a"`}, nil, true},
	} {
		e := &Entry{Header: hdr(tt.stored...)}
		if got := Matches(e, hdr(tt.resp...)); got != tt.want {
			t.Errorf("%s: Matches = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestInvalidate: a non-error answer to an unsafe method drops the stored
// GET and HEAD of its URL and of its Location and Content-Location on the
// same origin (RFC 9111 §4.4); an error answer, a safe method and another
// origin's Location drop nothing.
func TestInvalidate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		method string
		status int
		loc    string
		want   []string // the keys left
	}{
		{"POST", 200, "/b", []string{"GET https://a.example/c", "GET https://other.example/a"}},
		{"DELETE", 204, "https://other.example/a", []string{"GET https://a.example/b", "GET https://a.example/c", "GET https://other.example/a"}},
		{"PUT", 303, "", []string{"GET https://a.example/b", "GET https://a.example/c", "GET https://other.example/a"}},
		{"POST", 500, "/b", []string{"GET https://a.example/a", "HEAD https://a.example/a", "GET https://a.example/b", "GET https://a.example/c", "GET https://other.example/a"}},
		{"OPTIONS", 200, "/b", []string{"GET https://a.example/a", "HEAD https://a.example/a", "GET https://a.example/b", "GET https://a.example/c", "GET https://other.example/a"}},
	} {
		st := &Memory{}
		for _, k := range []string{"GET https://a.example/a", "HEAD https://a.example/a", "GET https://a.example/b", "GET https://a.example/c", "GET https://other.example/a"} {
			_ = st.Set(context.Background(), k, []byte("x"))
		}
		c := New(Config{Store: st})
		u, _ := url.Parse("https://a.example/a")
		resp := &http.Response{StatusCode: tt.status, Header: hdr("Content-Location", tt.loc)}
		if tt.loc != "" && tt.loc[0] != '/' {
			resp.Header = hdr("Location", tt.loc)
		}
		if !safe(tt.method) {
			c.invalidate(&http.Request{Method: tt.method, URL: u}, resp)
		}
		if len(st.m) != len(tt.want) {
			t.Errorf("%s %d: kept %d entries, want %v", tt.method, tt.status, len(st.m), tt.want)
		}
		for _, k := range tt.want {
			if _, ok := st.m[k]; !ok {
				t.Errorf("%s %d: %s was dropped", tt.method, tt.status, k)
			}
		}
	}
}
