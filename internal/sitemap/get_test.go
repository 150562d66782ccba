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

// TestGet: a 2xx body is returned, another status is ErrNotFetched; a
// server that sends no headers within the timeout is ErrNotFetched and
// a timeout (context.DeadlineExceeded), not "context canceled"; one that
// stalls in the middle of a body fails the read as a timeout, not "use
// of closed network connection"; one that trickles a byte every 5 ms,
// each within the timeout, is cut at the file's time with a *LimitError.
// The bounds are real time (50 ms, 200 ms: Get's timers are the thing
// tested); the test asserts only the errors, with a 10 s guard against a
// hang.
func TestGet(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wait := func(d time.Duration) bool {
			select {
			case <-release:
				return false
			case <-r.Context().Done():
				return false
			case <-time.After(d):
				return true
			}
		}
		switch r.URL.Path {
		case "/ok":
			fmt.Fprint(w, "https://ex.com/1\n")
		case "/silent":
			wait(time.Hour)
		case "/stall":
			fmt.Fprint(w, "https://ex.com/1\n")
			w.(http.Flusher).Flush()
			wait(time.Hour)
		case "/trickle":
			for wait(5 * time.Millisecond) {
				fmt.Fprint(w, " ")
				w.(http.Flusher).Flush()
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	defer close(release)
	get := func(path string) (io.ReadCloser, error) {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, srv.URL+path, nil)
		return Get(srv.Client(), req, 50*time.Millisecond, 200*time.Millisecond, func(*http.Response) {})
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
	if _, err := get("/silent"); !errors.Is(err, ErrNotFetched) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("no headers: %v, want ErrNotFetched and a timeout", err)
	}
	for _, tc := range []struct {
		path string
		want func(error) bool
	}{
		{"/stall", func(err error) bool { return errors.Is(err, context.DeadlineExceeded) }},
		{"/trickle", func(err error) bool {
			var le *LimitError
			return errors.As(err, &le) && le.Bound == "file seconds"
		}},
	} {
		body, err := get(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { _, err := io.ReadAll(body); done <- err }()
		select {
		case err := <-done:
			if !tc.want(err) {
				t.Errorf("%s: %v", tc.path, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("the read of %s did not end", tc.path)
		}
		body.Close()
	}
}
