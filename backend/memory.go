package backend

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/robotsext/robotsext/internal/pause"
)

// Memory is a Backend kept in this process's memory. Extensions
// given the same Memory share robots.txt records and each host's
// pace as a fleet sharing Redis would; it is also the reference the
// backendtest contract is checked against. (Collectors of one process
// usually need no Backend at all: Attach them to one Extension.)
//
// Expired records, leases and paces are dropped as the backend is used, so
// its memory follows the origins of the last MaxStale at most (and the
// last memoryPurgeLog purges). It implements Starter, Claimer, Queuer,
// LeaseRenewer, Forgetter, Pauser and PauseWatcher besides Backend. The zero value is ready to use and safe for
// concurrent use.
type Memory struct {
	// Now is the backend's clock; nil means time.Now. Set it before the
	// first call (tests move a fake clock with it) and leave it after.
	Now func() time.Time

	mu      sync.Mutex
	records map[string]*Record              // guarded by mu
	leases  map[string]memoryLease          // guarded by mu
	paces   map[string]memoryPace           // guarded by mu
	ops     int                             // guarded by mu; calls since the last sweep
	purges  []string                        // guarded by mu; the latest purged origins, oldest first
	purged  uint64                          // guarded by mu; purges ever logged
	pauses  map[string]*pause.State[string] // guarded by mu; the hosts' back-off (pause.go)
	// pauseLog holds the latest pauses begun, oldest first, numbered
	// from pauseSeq-len(pauseLog)+1 to pauseSeq (PauseWatcher; pause.go);
	// both guarded by mu.
	pauseLog []string
	pauseSeq uint64
}

var (
	_ Backend      = (*Memory)(nil)
	_ Starter      = (*Memory)(nil)
	_ Claimer      = (*Memory)(nil)
	_ LeaseRenewer = (*Memory)(nil)
	_ Forgetter    = (*Memory)(nil)
)

type memoryLease struct {
	token string
	until time.Time
}

type memoryPace struct {
	latest    time.Time     // the latest start booked or granted
	token     string        // who was granted latest (Start, Claim); "" after Reserve
	delay     time.Duration // the latest positive delay booked
	claimedBy string        // the token claiming the host (Claim); "" when none
	claimTill time.Time     // when claimedBy's claim expires
	unclaimed time.Time     // when the latest claim ended (Unclaim)

	// The queue (Queuer; memoryqueue.go).
	issued    int64         // the last ticket given out
	served    int64         // the last ticket that started; tickets up to it count as started
	svc       time.Duration // the service time: from a start Queue granted to its Unclaim (svcSample)
	granted   time.Time     // when Queue granted the latest start
	queueTill time.Time     // the latest turn handed out, plus MinPaceKeep
}

// until is when p may be forgotten: a request after it starts at once.
// A start recorded with no delay (the robots.txt request) is kept for
// MinPaceKeep, so that the host's first page still waits for it.
func (p memoryPace) until() time.Time {
	t := p.latest.Add(max(p.delay, MinPaceKeep))
	if r := p.unclaimed.Add(p.delay); r.After(t) {
		t = r
	}
	if p.claimedBy != "" && p.claimTill.After(t) {
		t = p.claimTill
	}
	return later(t, p.queueTill)
}

// claimedByOther reports whether a token other than token claims p at now.
func (p memoryPace) claimedByOther(token string, now time.Time) bool {
	return p.claimedBy != "" && p.claimedBy != token && now.Before(p.claimTill)
}

const (
	// memorySweepEvery is how many calls pass between sweeps of expired
	// state.
	memorySweepEvery = 4096
	// memoryPurgeLog is how many purges the log keeps; a worker further
	// behind drops its whole near-cache.
	memoryPurgeLog = 1024
	// futureSlack is how far past the backend's clock a latest start may
	// lie before Start treats it as broken.
	futureSlack = time.Second
)

// NewMemory returns an empty Memory.
func NewMemory() *Memory { return &Memory{} }

func (m *Memory) clock() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

// lock takes mu, creates the maps and sweeps now and then. It returns the
// backend's time.
func (m *Memory) lock() time.Time {
	m.mu.Lock()
	now := m.clock()
	if m.records == nil {
		m.records = make(map[string]*Record)
		m.leases = make(map[string]memoryLease)
		m.paces = make(map[string]memoryPace)
	}
	if m.ops++; m.ops >= memorySweepEvery {
		m.ops = 0
		for k, r := range m.records {
			if now.After(r.KeepUntil()) {
				delete(m.records, k)
			}
		}
		for k, l := range m.leases {
			if !now.Before(l.until) {
				delete(m.leases, k)
			}
		}
		for k, p := range m.paces {
			if !now.Before(p.until()) {
				delete(m.paces, k)
			}
		}
	}
	return now
}

// Load implements Backend.
func (m *Memory) Load(ctx context.Context, origin string) (*Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	now := m.lock()
	defer m.mu.Unlock()
	r := m.records[origin]
	if r != nil && now.After(r.KeepUntil()) {
		delete(m.records, origin)
		return nil, nil
	}
	return r, nil
}

// Lease implements Backend.
func (m *Memory) Lease(ctx context.Context, origin string, ttl time.Duration) (Lease, bool, time.Duration, error) {
	if err := ctx.Err(); err != nil {
		return Lease{}, false, 0, err
	}
	if ttl <= 0 {
		return Lease{}, false, 0, fmt.Errorf("robotsext: lease ttl %v must be positive", ttl)
	}
	token := newLeaseToken()
	now := m.lock()
	defer m.mu.Unlock()
	if l, ok := m.leases[origin]; ok && now.Before(l.until) {
		return Lease{}, false, l.until.Sub(now), nil
	}
	m.leases[origin] = memoryLease{token: token, until: now.Add(ttl)}
	return Lease{Token: token}, true, 0, nil
}

// Store implements Backend.
func (m *Memory) Store(ctx context.Context, origin string, l Lease, rec *Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if rec == nil {
		return fmt.Errorf("robotsext: Store of a nil record for %s", origin)
	}
	now := m.lock()
	defer m.mu.Unlock()
	cur, ok := m.leases[origin]
	if !ok || cur.token != l.Token || !now.Before(cur.until) {
		return fmt.Errorf("%w: %s", ErrLeaseLost, origin)
	}
	delete(m.leases, origin)
	m.records[origin] = rec
	return nil
}

// Reserve implements Backend.
func (m *Memory) Reserve(ctx context.Context, host string, delay time.Duration) (time.Duration, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if delay < 0 {
		delay = 0
	}
	now := m.lock()
	defer m.mu.Unlock()
	p := m.paces[host]
	start := now
	if t := p.latest.Add(delay); t.After(start) {
		start = t
	}
	p.latest = start
	if delay > 0 {
		p.delay = delay
	}
	if p.until().After(now) {
		m.paces[host] = p
	} else {
		delete(m.paces, host)
	}
	return start.Sub(now), nil
}

// Start implements Starter.
func (m *Memory) Start(ctx context.Context, host, token string, delay time.Duration) (time.Duration, bool, error) {
	if err := ctx.Err(); err != nil {
		return 0, false, err
	}
	if delay < 0 {
		delay = 0
	}
	now := m.lock()
	defer m.mu.Unlock()
	p, known := m.paces[host]
	repaired := known && p.latest.After(now.Add(futureSlack))
	if repaired {
		p, known = memoryPace{}, false
	}
	if known && delay > 0 && (token == "" || p.token != token) {
		if wait := p.latest.Add(delay).Sub(now); wait > 0 {
			return wait, repaired, nil
		}
	}
	p.latest, p.token = now, token
	if delay > 0 {
		p.delay = delay
	}
	if p.until().After(now) {
		m.paces[host] = p
	} else {
		delete(m.paces, host)
	}
	return 0, repaired, nil
}

// Claim implements Claimer.
func (m *Memory) Claim(ctx context.Context, host, token string, delay, ttl time.Duration) (time.Duration, bool, error) {
	if err := ctx.Err(); err != nil {
		return 0, false, err
	}
	now := m.lock()
	defer m.mu.Unlock()
	wait, repaired := m.claimLocked(host, token, max(delay, 0), max(ttl, 0), now)
	return wait, repaired, nil
}

// claimLocked is Claim at now. m.mu must be held.
func (m *Memory) claimLocked(host, token string, delay, ttl time.Duration, now time.Time) (time.Duration, bool) {
	p, known := m.paces[host]
	repaired := known && (p.latest.After(now.Add(futureSlack)) || p.unclaimed.After(now.Add(futureSlack)))
	if repaired {
		p, known = memoryPace{}, false
	}
	if p.claimedBy != "" && p.claimTill.After(now.Add(ttl+futureSlack)) {
		p.claimedBy, p.claimTill, repaired = "", time.Time{}, true
	}
	if known && delay > 0 {
		if p.claimedByOther(token, now) {
			return max(p.latest.Add(delay).Sub(now), claimPoll(delay)), repaired
		}
		ready := p.unclaimed.Add(delay)
		if p.token != token {
			ready = later(ready, p.latest.Add(delay))
		}
		if wait := ready.Sub(now); wait > 0 {
			return wait, repaired
		}
	}
	p.latest, p.token = now, token
	if delay > 0 {
		p.delay = delay
		p.claimedBy, p.claimTill = token, now.Add(ttl)
	}
	m.keepPace(host, p, now)
	return 0, repaired
}

// keepPace stores p as host's pace, or drops it when nothing in it
// matters any more. m.mu must be held.
func (m *Memory) keepPace(host string, p memoryPace, now time.Time) {
	if p.until().After(now) {
		m.paces[host] = p
	} else {
		delete(m.paces, host)
	}
}

// Unclaim implements Claimer.
func (m *Memory) Unclaim(ctx context.Context, host, token string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now := m.lock()
	defer m.mu.Unlock()
	p, ok := m.paces[host]
	if !ok || token == "" || p.claimedBy != token {
		return nil
	}
	p.claimedBy, p.claimTill = "", time.Time{}
	p.unclaimed = later(p.unclaimed, now)
	if p.token == token { // the claim's own start: how long its answer took
		from := p.latest
		if !p.granted.IsZero() && !p.granted.After(p.latest) && p.latest.Sub(p.granted) <= p.delay {
			from = p.granted // the claim followed Queue's grant: count from the grant
		}
		p.svc = svcSample(p.svc, now.Sub(from))
	}
	m.paces[host] = p
	return nil
}

// svcSample folds one service time into a host's, which starts at 0: a
// shorter one replaces it, a longer one moves it an eighth of the way.
// Erring short keeps queued requests from coming back after their turn
// (the host would sit idle); they come back early, and ask once more,
// instead.
func svcSample(svc, sample time.Duration) time.Duration {
	sample = max(sample, 0)
	if sample < svc {
		return sample
	}
	return svc + (sample-svc)/8
}

// claimPoll is how long a Claim waits before asking again while another
// request claims the host: half the delay, so that an Unclaim is seen
// before the delay after it has passed.
func claimPoll(delay time.Duration) time.Duration {
	return max(delay/2, time.Millisecond)
}

// later returns the later of a and b.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// Renew implements LeaseRenewer.
func (m *Memory) Renew(ctx context.Context, origin string, l Lease, ttl time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if ttl <= 0 {
		return fmt.Errorf("robotsext: lease ttl %v must be positive", ttl)
	}
	now := m.lock()
	defer m.mu.Unlock()
	cur, ok := m.leases[origin]
	if !ok || cur.token != l.Token || !now.Before(cur.until) {
		return fmt.Errorf("%w: %s", ErrLeaseLost, origin)
	}
	cur.until = now.Add(ttl)
	m.leases[origin] = cur
	return nil
}

// Forget implements Forgetter.
func (m *Memory) Forget(ctx context.Context, origin string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.lock()
	defer m.mu.Unlock()
	delete(m.records, origin)
	delete(m.leases, origin)
	if len(m.purges) == memoryPurgeLog {
		copy(m.purges, m.purges[1:])
		m.purges = m.purges[:memoryPurgeLog-1]
	}
	m.purges = append(m.purges, origin)
	m.purged++
	return nil
}

// Purges implements Forgetter. Its cursor is the number of purges logged,
// in decimal.
func (m *Memory) Purges(ctx context.Context, cursor string) ([]string, string, bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", false, err
	}
	m.lock()
	defer m.mu.Unlock()
	next := strconv.FormatUint(m.purged, 10)
	if cursor == "" {
		return nil, next, false, nil
	}
	seen, err := strconv.ParseUint(cursor, 10, 64)
	oldest := m.purged - uint64(len(m.purges))
	if err != nil || seen > m.purged || seen < oldest {
		// Not a cursor of this backend, or the log no longer reaches it.
		return nil, next, true, nil
	}
	tail := m.purges[len(m.purges)-int(m.purged-seen):]
	return append([]string(nil), tail...), next, false, nil
}

// newLeaseToken returns 16 random bytes in hex.
func newLeaseToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}
