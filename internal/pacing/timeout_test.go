package pacing

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"testing"
	"time"
)

// timeoutErr is a net.Error that timed out, as the client's is.
type timeoutErr struct{}

func (timeoutErr) Error() string   { return "Client.Timeout exceeded while awaiting headers" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

// TestEndedErrTimeout proves that a request the client timed out on ends
// its host's claim as late again as it had been out, on the hand-moved
// clock: A is out 700 ms at a delay of 500 ms when it fails; after a
// timeout (the client's, wrapped as net/http wraps it, or a context
// deadline) B passes 700 + 700 + 500 ms after A, so that a server still
// working on A is not sent B at once; after any other error, 700 + 500
// ms, as before. Before, a timeout ended the claim at once, and a server
// answering in 3 s had three requests at once.
func TestEndedErrTimeout(t *testing.T) {
	t.Parallel()
	const delay, out = 500 * time.Millisecond, 700 * time.Millisecond
	for _, tt := range []struct {
		name string
		err  error
		want time.Duration
	}{
		{"client timeout", &url.Error{Op: "Get", URL: "http://h.test/", Err: timeoutErr{}}, 2*out + delay},
		{"context deadline", fmt.Errorf("get: %w", context.DeadlineExceeded), 2*out + delay},
		{"connection refused", &url.Error{Op: "Get", URL: "http://h.test/", Err: errors.New("connection refused")}, out + delay},
		{"no error", nil, out + delay},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pc, clk := newFakePacer(0, nil)
			pc.Loaded("h.test", delay, true, clk.now())
			clk.advance(delay)
			ctx := context.Background()
			if err := pc.Gate(ctx, "h.test", "A", nil); err != nil {
				t.Fatal(err)
			}
			startA := clk.now()
			clk.advance(out)
			pc.EndedErr(ctx, "A", tt.err)
			if err := pc.Gate(ctx, "h.test", "B", nil); err != nil {
				t.Fatal(err)
			}
			if gap := clk.now().Sub(startA); gap != tt.want {
				t.Errorf("B passed %v after A, want %v", gap, tt.want)
			}
		})
	}
}
