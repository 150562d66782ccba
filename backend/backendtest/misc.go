package backendtest

// This file checks what applies to every method: cancelled contexts,
// unusual keys and concurrent use.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robotsext/robotsext/backend"
)

// testCancelledContext: every method fails with the context's error when
// called with a cancelled context, and changes nothing.
func testCancelledContext(t *testing.T, b backend.Backend) {
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	origin, host := "https://cancelled.example", "cancelled.example"

	if _, err := b.Load(cancelled, origin); !errors.Is(err, context.Canceled) {
		t.Errorf("Load = %v; want context.Canceled", err)
	}
	if _, ok, _, err := b.Lease(cancelled, origin, time.Minute); !errors.Is(err, context.Canceled) || ok {
		t.Errorf("Lease = ok %v, %v; want context.Canceled", ok, err)
	}
	if _, err := b.Reserve(cancelled, host, paceDelay); !errors.Is(err, context.Canceled) {
		t.Errorf("Reserve = %v; want context.Canceled", err)
	}
	l := mustLease(t, b, origin, time.Minute) // the cancelled Lease took nothing
	if err := b.Store(cancelled, origin, l, sampleRecord(origin)); !errors.Is(err, context.Canceled) {
		t.Errorf("Store = %v; want context.Canceled", err)
	}
	if rec := mustLoad(t, b, origin); rec != nil {
		t.Errorf("the cancelled Store wrote a record")
	}
	mustStore(t, b, origin, l, sampleRecord(origin)) // and kept the lease
	if waits, _ := reserveSeq(t, b, host, paceDelay); waits[0] != 0 {
		t.Errorf("the cancelled Reserve booked a slot: the next waits %v", waits[0])
	}
}

// oddKeys are origins (and their hosts) whose characters or length a
// backend's key scheme might mangle.
var oddKeys = []struct{ origin, host string }{
	{"http://[::1]:8080", "[::1]:8080"},
	{"https://[2001:db8::1]", "[2001:db8::1]"},
	{"http://[fe80::1%25eth0]:8080", "[fe80::1%25eth0]:8080"},
	{"https://example.com:8443", "example.com:8443"},
	{"http://127.0.0.1:1", "127.0.0.1:1"},
	{"https://xn--bcher-kva.example", "xn--bcher-kva.example"},
	{"https://" + longHost(), longHost()},
	{"https://a_b-c.example", "a_b-c.example"},
	{"https://curly{brace}.example", "curly{brace}.example"},
	{"https://spaces and:colons.example", "spaces and:colons.example"},
}

// longHost is a 253-byte host name, the longest DNS allows.
func longHost() string {
	label := strings.Repeat("a", 63)
	return label + "." + label + "." + label + "." + strings.Repeat("b", 61)
}

// testOddKeys: each odd origin and host works and stays apart from the
// others.
func testOddKeys(t *testing.T, b backend.Backend) {
	for i, k := range oddKeys {
		rec := sampleRecord(k.origin)
		rec.Failures = i // tells the records apart
		mustStore(t, b, k.origin, mustLease(t, b, k.origin, time.Minute), rec)
		if waits, slack := reserveSeq(t, b, k.host, paceDelay, paceDelay); waits[1] < paceDelay-slack {
			t.Errorf("host %q: second Reserve waits %v; want about %v", k.host, waits[1], paceDelay)
		}
	}
	for i, k := range oddKeys {
		rec := mustLoad(t, b, k.origin)
		if rec == nil || rec.Failures != i {
			t.Errorf("origin %q: loaded %+v; want its own record (Failures %d)", k.origin, rec, i)
		}
	}
}

// testConcurrentMixed: many goroutines using many keys at once (run with
// -race), each origin ending with exactly its own record.
func testConcurrentMixed(t *testing.T, b backend.Backend) {
	const workers, origins = 8, 24
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range origins {
				origin := fmt.Sprintf("https://mixed%d.example", (i+w)%origins)
				if _, err := b.Reserve(ctx(t), fmt.Sprintf("mixed%d.example", i), time.Second); err != nil {
					t.Errorf("Reserve: %v", err)
					return
				}
				l, ok, _, err := b.Lease(ctx(t), origin, time.Minute)
				if err != nil {
					t.Errorf("Lease: %v", err)
					return
				}
				if ok {
					rec := sampleRecord(origin)
					rec.Failures = (i + w) % origins
					if err := b.Store(ctx(t), origin, l, rec); err != nil {
						t.Errorf("Store with the held lease: %v", err)
						return
					}
				}
				if _, err := b.Load(ctx(t), origin); err != nil {
					t.Errorf("Load: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	for i := range origins {
		origin := fmt.Sprintf("https://mixed%d.example", i)
		if rec := mustLoad(t, b, origin); rec == nil || rec.Failures != i {
			t.Errorf("origin %q: loaded %+v; want its own record", origin, rec)
		}
	}
}
