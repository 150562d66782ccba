package backendtest

// This file checks Pauser, the fleet's shared back-off, for backends that
// implement it. The pauses are tens of milliseconds of the backend's own
// clock (real time for a real backend), so the checks poll.

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/robotsext/robotsext/backend"
)

// pauser returns b as a Pauser, or skips t.
func pauser(t *testing.T, b backend.Backend) backend.Pauser {
	t.Helper()
	p, ok := b.(backend.Pauser)
	if !ok {
		t.Skip("the backend is not a Pauser")
	}
	return p
}

func mustPause(t *testing.T, p backend.Pauser, host string, ra, base, limit time.Duration) (time.Duration, bool, bool) {
	t.Helper()
	w, started, capped, repaired, err := p.Pause(ctx(t), host, ra, base, limit)
	if err != nil {
		t.Fatalf("Pause(%s): %v", host, err)
	}
	if repaired {
		t.Fatalf("Pause(%s) repaired a state this contract wrote", host)
	}
	return w, started, capped
}

type askAnswer struct {
	wait           time.Duration
	probe, healthy bool
}

func mustAsk(t *testing.T, p backend.Pauser, host, token string) askAnswer {
	t.Helper()
	w, probe, healthy, repaired, err := p.Ask(ctx(t), host, token)
	if err != nil {
		t.Fatalf("Ask(%s, %s): %v", host, token, err)
	}
	if repaired {
		t.Fatalf("Ask(%s) repaired a state this contract wrote", host)
	}
	return askAnswer{w, probe, healthy}
}

// pollProbe asks for token until it is the probe (or the host is
// healthy, which fails t), for at most ten seconds.
func pollProbe(t *testing.T, p backend.Pauser, host, token string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		a := mustAsk(t, p, host, token)
		switch {
		case a.healthy:
			t.Fatalf("Ask(%s): healthy before any probe", host)
		case a.wait == 0 && a.probe:
			return
		case a.wait == 0:
			t.Fatalf("Ask(%s) let %s go without a probe", host, token)
		}
		time.Sleep(min(a.wait, 50*time.Millisecond))
	}
	t.Fatalf("Ask(%s): no probe within ten seconds", host)
}

// testPauseHealthy: a host nobody paused is healthy and not listed.
func testPauseHealthy(t *testing.T, b backend.Backend) {
	p := pauser(t, b)
	if a := mustAsk(t, p, "fine.example", "a"); !a.healthy || a.wait != 0 || a.probe {
		t.Fatalf("Ask of an unpaused host = %+v; want healthy", a)
	}
	healthy, err := p.Answered(ctx(t), "fine.example", "a")
	if err != nil || !healthy {
		t.Fatalf("Answered of an unpaused host = %v, %v; want healthy", healthy, err)
	}
	hosts, err := p.Paused(ctx(t), 10)
	if err != nil || len(hosts) != 0 {
		t.Fatalf("Paused = %v, %v; want none", hosts, err)
	}
}

// testPauseRetryAfter: a pause holds for its Retry-After, is listed, and
// a second signal during it starts nothing; hosts are independent.
func testPauseRetryAfter(t *testing.T, b backend.Backend) {
	p := pauser(t, b)
	const host = "paused.example"
	w, started, capped := mustPause(t, p, host, time.Hour, time.Second, 2*time.Hour)
	if !started || capped || w < time.Hour-time.Minute || w > time.Hour {
		t.Fatalf("Pause = %v, started %v, capped %v; want about an hour, started", w, started, capped)
	}
	if _, started, _ := mustPause(t, p, host, time.Minute, time.Second, 2*time.Hour); started {
		t.Error("a second signal during the pause started another")
	}
	for _, tok := range []string{"a", "b"} {
		if a := mustAsk(t, p, host, tok); a.healthy || a.wait < time.Hour-time.Minute {
			t.Errorf("Ask(%s) during an hour's pause = %+v", tok, a)
		}
	}
	if a := mustAsk(t, p, "other.example", "a"); !a.healthy {
		t.Errorf("another host is paused too: %+v", a)
	}
	hosts, err := p.Paused(ctx(t), 10)
	if err != nil || !slices.Equal(hosts, []string{host}) {
		t.Errorf("Paused = %v, %v; want [%s]", hosts, err, host)
	}
}

// testPauseCapped: limit cuts a longer Retry-After and says so.
func testPauseCapped(t *testing.T, b backend.Backend) {
	p := pauser(t, b)
	w, started, capped := mustPause(t, p, "capped.example", 24*time.Hour, time.Second, time.Minute)
	if !started || !capped || w > time.Minute || w < 50*time.Second {
		t.Fatalf("Pause = %v, started %v, capped %v; want a minute, capped", w, started, capped)
	}
}

// testPauseOneProbe: when the pause ends one token probes, the others
// wait; the probe's good answer starts the recovery, whose starts are
// spaced; the recovery ends in good health.
func testPauseOneProbe(t *testing.T, b backend.Backend) {
	p := pauser(t, b)
	const host = "probe.example"
	mustPause(t, p, host, 0, 40*time.Millisecond, time.Minute)
	pollProbe(t, p, host, "probe")
	if a := mustAsk(t, p, host, "other"); a.wait == 0 || a.healthy {
		t.Fatalf("a second token during the probe = %+v; want to wait", a)
	}
	if healthy, err := p.Answered(ctx(t), host, "probe"); err != nil || healthy {
		t.Fatalf("Answered(probe) = %v, %v; want recovering", healthy, err)
	}
	// Recovering: the gap is a quarter of 40 ms; answers halve it until
	// the host is healthy.
	healthy := false
	for range 20 {
		h, err := p.Answered(ctx(t), host, "x")
		if err != nil {
			t.Fatal(err)
		}
		if healthy = h; h {
			break
		}
	}
	if !healthy {
		t.Fatal("twenty good answers did not end the recovery")
	}
	if a := mustAsk(t, p, host, "later"); !a.healthy {
		t.Errorf("Ask after the recovery = %+v; want healthy", a)
	}
}

// testPauseProbeFails: a failure while probing doubles the pause.
func testPauseProbeFails(t *testing.T, b backend.Backend) {
	p := pauser(t, b)
	const host, base = "double.example", 30 * time.Millisecond
	mustPause(t, p, host, 0, base, time.Minute)
	pollProbe(t, p, host, "probe")
	w, started, _ := mustPause(t, p, host, 0, base, time.Minute)
	if !started || w < 2*base-5*time.Millisecond || w > 2*base {
		t.Fatalf("Pause after a failed probe = %v, started %v; want %v, started", w, started, 2*base)
	}
}

// testPauseConcurrentProbe: of many workers asking at once when a pause
// ends, one is the probe.
func testPauseConcurrentProbe(t *testing.T, b backend.Backend) {
	p := pauser(t, b)
	const host = "herd.example"
	mustPause(t, p, host, 0, 30*time.Millisecond, time.Minute)
	time.Sleep(40 * time.Millisecond) // the pause's end
	var mu sync.Mutex
	probes := 0
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, probe, _, _, err := p.Ask(ctx(t), host, string(rune('a'+i)))
			if err != nil {
				t.Error(err)
				return
			}
			if w == 0 && probe {
				mu.Lock()
				probes++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if probes != 1 {
		t.Fatalf("%d probes among 16 concurrent asks, want 1", probes)
	}
}
