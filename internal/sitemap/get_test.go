package sitemap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestGet: a 2xx body is returned, another status is ErrNotFetched, and a
// server that stalls in the middle of a body fails the read once the
// read has waited the timeout (50 ms here; the test asserts only that the
// read ends, with a 10 s guard against a hang).
func TestGet(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			fmt.Fprint(w, "https://ex.com/1\n")
		case "/stall":
			fmt.Fprint(w, "https://ex.com/1\n")
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-r.Context().Done():
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	defer close(release)
	get := func(path string) (io.ReadCloser, error) {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, srv.URL+path, nil)
		return Get(srv.Client(), req, 50*time.Millisecond, func(*http.Response) {})
	}
	if body, err := get("/ok"); err != nil {
		t.Fatal(err)
	} else if b, err := io.ReadAll(body); err != nil || string(b) != "https://ex.com/1\n" {
		t.Errorf("body %q, %v", b, err)
	} else {
		body.Close()
	}
	if _, err := get("/missing"); !errors.Is(err, ErrNotFetched) {
		t.Errorf("a 404: %v, want ErrNotFetched", err)
	}
	body, err := get("/stall")
	if err != nil {
		t.Fatal(err)
	}
	defer body.Close()
	done := make(chan error, 1)
	go func() { _, err := io.ReadAll(body); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a stalled body read to its end without an error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the read of a stalled body did not end")
	}
}
