package redisbackend

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/robotsext/robotsext/backend"
)

// redisMicros returns the server's clock in µs, as the scripts read it.
func redisMicros(t *testing.T, c *redis.Client) int64 {
	t.Helper()
	now, err := c.Time(t.Context()).Result()
	if err != nil {
		t.Fatal(err)
	}
	return now.UnixMicro()
}

// TestStart: Start's answers beyond the contract, on a real server: what
// it makes of values it did not write (a start in the future, garbage, a
// key of another type, Reserve's two-field value) and what it leaves in
// the pace key. Waits are checked against an hour's delay, never the
// clock.
func TestStart(t *testing.T) {
	t.Parallel()
	s := startRedisServer(t)
	c := newClient(t, "unix", s.Sock)
	b := New(c, WithHeartbeat(-1))
	const hour = time.Hour
	hourUS := int64(hour / time.Microsecond)

	type call struct {
		token    string
		delay    time.Duration
		wait     bool // a wait of about the delay (else granted at once)
		repaired bool
	}
	tests := []struct {
		name  string
		setup func(key string, now int64) error // nil: a fresh host
		calls []call
	}{
		{"fresh host granted", nil, []call{{"a", hour, false, false}}},
		{"another token waits", nil, []call{{"a", hour, false, false}, {"b", hour, true, false}}},
		{"the owner confirms", nil, []call{{"a", hour, false, false}, {"a", hour, false, false}, {"b", hour, true, false}}},
		{"an empty token never confirms", nil, []call{{"", hour, false, false}, {"", hour, true, false}}},
		{"delay 0 records a start", nil, []call{{"z", 0, false, false}, {"b", hour, true, false}}},
		{"a start in the future is replaced", func(key string, now int64) error {
			return c.Set(t.Context(), key, fmt.Sprintf("%d %d other", now+hourUS, hourUS), 0).Err()
		}, []call{{"b", hour, false, true}, {"c", hour, true, false}}},
		{"half a second ahead is kept", func(key string, now int64) error {
			return c.Set(t.Context(), key, fmt.Sprintf("%d %d other", now+500_000, hourUS), 0).Err()
		}, []call{{"b", hour, true, false}}},
		{"a start long past is granted", func(key string, now int64) error {
			return c.Set(t.Context(), key, fmt.Sprintf("%d %d other", now-2*hourUS, hourUS), 0).Err()
		}, []call{{"b", hour, false, false}, {"c", hour, true, false}}},
		{"garbage is replaced", func(key string, _ int64) error {
			return c.Set(t.Context(), key, "garbage", 0).Err()
		}, []call{{"b", hour, false, true}, {"c", hour, true, false}}},
		{"a number too many digits long is replaced", func(key string, _ int64) error {
			return c.Set(t.Context(), key, strings.Repeat("9", 400)+" 1 x", 0).Err()
		}, []call{{"b", hour, false, true}}},
		{"a bad delay is replaced", func(key string, now int64) error {
			return c.Set(t.Context(), key, fmt.Sprintf("%d x other", now), 0).Err()
		}, []call{{"b", hour, false, true}}},
		{"a token not set off by a space is replaced", func(key string, now int64) error {
			return c.Set(t.Context(), key, fmt.Sprintf("%d %dother", now, hourUS), 0).Err()
		}, []call{{"b", hour, false, true}}},
		{"a list is replaced", func(key string, _ int64) error {
			return c.RPush(t.Context(), key, "x", "y").Err()
		}, []call{{"b", hour, false, true}, {"c", hour, true, false}}},
		{"a hash is replaced", func(key string, _ int64) error {
			return c.HSet(t.Context(), key, "latest", "1").Err()
		}, []call{{"b", hour, false, true}}},
		{"Reserve's value is read", func(key string, now int64) error {
			return c.Set(t.Context(), key, fmt.Sprintf("%d %d", now, hourUS), 0).Err()
		}, []call{{"b", hour, true, false}, {"", hour, true, false}}},
		{"a token with spaces confirms", nil, []call{{"w 1/x y", hour, false, false}, {"w 1/x y", hour, false, false}, {"w 1/x", hour, true, false}}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			host := fmt.Sprintf("start%d.example", i)
			key := b.keys.pace(host)
			if tc.setup != nil {
				if err := tc.setup(key, redisMicros(t, c)); err != nil {
					t.Fatal(err)
				}
			}
			begin := time.Now()
			for j, cl := range tc.calls {
				w, repaired, err := b.Start(t.Context(), host, cl.token, cl.delay)
				if err != nil {
					t.Fatalf("call %d: %v", j, err)
				}
				slack := time.Since(begin) + time.Second // the setups' starts may lie up to 1 s ahead
				switch {
				case !cl.wait && w != 0:
					t.Errorf("call %d (%q, %v) waits %v; want it granted", j, cl.token, cl.delay, w)
				case cl.wait && (w > cl.delay+time.Second || w < cl.delay-slack):
					t.Errorf("call %d (%q, %v) waits %v; want about %v", j, cl.token, cl.delay, w, cl.delay)
				}
				if repaired != cl.repaired {
					t.Errorf("call %d (%q): repaired %v; want %v", j, cl.token, repaired, cl.repaired)
				}
			}
			if typ := c.Type(t.Context(), key).Val(); typ != "string" {
				t.Errorf("the pace key is a %s after Start; want a string", typ)
			}
			if !b.Healthy() {
				t.Errorf("not Healthy after Start repaired a value: a bad value is not a Redis failure")
			}
		})
	}
}

// TestStartKey: the pace key holds the latest start and delay in µs by
// Redis's clock and the token it was granted to (see pacePrelude), the owner's confirmation moves the latest start on, and the
// key lives as long as the longer of its delay and backend.MinPaceKeep,
// plus the margin.
func TestStartKey(t *testing.T) {
	t.Parallel()
	s := startRedisServer(t)
	c := newClient(t, "unix", s.Sock)
	b := New(c, WithHeartbeat(-1))
	ctx := t.Context()

	read := func(host string) (latest, delay int64, token string) {
		t.Helper()
		p := readPace(t, c, b.keys.pace(host))
		return p.latest, p.delay, p.owner
	}

	before := redisMicros(t, c)
	if _, _, err := b.Start(ctx, "key.example", "tok en", 1500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	latest, delay, token := read("key.example")
	after := redisMicros(t, c)
	if latest < before || latest > after || delay != 1_500_000 || token != "tok en" {
		t.Errorf("pace = %d %d %q; want a start in [%d, %d], 1500000 µs and the token", latest, delay, token, before, after)
	}
	// The owner confirms (a few round trips later, so some µs on): the
	// start moves to now; the delay and token stay.
	if w, _, err := b.Start(ctx, "key.example", "tok en", 1500*time.Millisecond); err != nil || w != 0 {
		t.Fatalf("confirmation = %v, %v; want granted", w, err)
	}
	if l2, d2, tok2 := read("key.example"); l2 <= latest || d2 != delay || tok2 != "tok en" {
		t.Errorf("after the confirmation pace = %d %d %q; want a later start, the same delay and token", l2, d2, tok2)
	}
	// Delay 0 keeps the latest positive delay.
	if _, _, err := b.Start(ctx, "key.example", "other", 0); err != nil {
		t.Fatal(err)
	}
	if _, d, tok := read("key.example"); d != 1_500_000 || tok != "other" {
		t.Errorf("after a delay-0 start: delay %d, token %q; want 1500000 and \"other\"", d, tok)
	}

	ttls := []struct {
		delay    time.Duration
		min, max time.Duration
	}{
		{0, backend.MinPaceKeep, backend.MinPaceKeep + paceMargin},
		{2 * time.Second, backend.MinPaceKeep, backend.MinPaceKeep + paceMargin},
		{time.Hour, time.Hour, time.Hour + paceMargin},
	}
	for i, tc := range ttls {
		host := fmt.Sprintf("ttl%d.example", i)
		if _, _, err := b.Start(ctx, host, "a", tc.delay); err != nil {
			t.Fatal(err)
		}
		ttl := c.PTTL(ctx, b.keys.pace(host)).Val()
		if ttl < tc.min-time.Second || ttl > tc.max {
			t.Errorf("delay %v: pace TTL %v; want about %v..%v", tc.delay, ttl, tc.min, tc.max)
		}
	}
}

// TestStartAndReserveShareTheKey: Reserve reads the value Start writes
// (its token ignored) and Start reads Reserve's, so the two never count
// each other's value as broken.
func TestStartAndReserveShareTheKey(t *testing.T) {
	t.Parallel()
	m := newMiniredis(t) // the scripts run on miniredis too (the fleet example uses it)
	b := New(newClient(t, "tcp", m.Addr()), WithHeartbeat(-1))
	ctx := t.Context()
	if w, rep, err := b.Start(ctx, "shared.example", "a", time.Hour); err != nil || w != 0 || rep {
		t.Fatalf("Start = %v, %v, %v", w, rep, err)
	}
	w, err := b.Reserve(ctx, "shared.example", time.Hour)
	if err != nil || w < 59*time.Minute || w > time.Hour {
		t.Fatalf("Reserve after Start = %v, %v; want about an hour", w, err)
	}
	// Reserve booked an hour ahead: more than a second in the future, so
	// Start repairs it, as Memory does.
	if w, rep, err := b.Start(ctx, "shared.example", "b", time.Hour); err != nil || w != 0 || !rep {
		t.Fatalf("Start after a booking an hour ahead = %v, repaired %v, %v; want granted and repaired", w, rep, err)
	}
	if w, err := b.Reserve(ctx, "fresh-r.example", time.Hour); err != nil || w != 0 {
		t.Fatalf("Reserve = %v, %v", w, err)
	}
	if w, rep, err := b.Start(ctx, "fresh-r.example", "a", time.Hour); err != nil || rep || w < 59*time.Minute {
		t.Fatalf("Start after Reserve = %v, repaired %v, %v; want a wait of about an hour", w, rep, err)
	}
}

// TestLeaseTokens: a lease token starts with the worker id, by default
// the host name and process id, so that an operator can tell which
// worker fetches (Inspect).
func TestLeaseTokens(t *testing.T) {
	t.Parallel()
	m := newMiniredis(t)
	c := newClient(t, "tcp", m.Addr())
	host, _ := os.Hostname()
	tests := []struct {
		name string
		opts []Option
		want string // the token's prefix
	}{
		{"default", nil, fmt.Sprintf("%s/%d/", host, os.Getpid())},
		{"WithWorkerID", []Option{WithWorkerID("crawler-7")}, "crawler-7/"},
		{"empty id restores the default", []Option{WithWorkerID("")}, fmt.Sprintf("%s/%d/", host, os.Getpid())},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := New(c, append(tc.opts, WithHeartbeat(-1), WithPrefix(fmt.Sprintf("tok%d:", i)))...)
			origin := "https://tokens.example"
			l, ok, _, err := b.Lease(t.Context(), origin, time.Minute)
			if err != nil || !ok {
				t.Fatalf("Lease = %v, %v", ok, err)
			}
			if !strings.HasPrefix(l.Token, tc.want) || len(l.Token) != len(tc.want)+32 {
				t.Errorf("token %q; want %q and 32 hex digits", l.Token, tc.want)
			}
			st, err := b.Inspect(t.Context(), origin)
			if err != nil || st.LeaseHolder != l.Token {
				t.Errorf("Inspect lease holder %q, %v; want %q", st.LeaseHolder, err, l.Token)
			}
			if got := b.WorkerID(); got+"/" != tc.want {
				t.Errorf("WorkerID() = %q; want %q", got, strings.TrimSuffix(tc.want, "/"))
			}
		})
	}
}

// TestRenew: Renew extends the held lease's TTL and nothing else: a
// foreign token, an empty one, an expired lease and a lease key of
// another type are lost leases (ErrLeaseLost), not Redis failures.
func TestRenew(t *testing.T) {
	t.Parallel()
	s := startRedisServer(t)
	c := newClient(t, "unix", s.Sock)
	b := New(c, WithHeartbeat(-1))
	ctx := t.Context()

	origin := "https://renew.example"
	l, ok, _, err := b.Lease(ctx, origin, 200*time.Millisecond)
	if err != nil || !ok {
		t.Fatalf("Lease = %v, %v", ok, err)
	}
	if err := b.Renew(ctx, origin, l, time.Hour); err != nil {
		t.Fatalf("Renew of the held lease: %v", err)
	}
	if ttl := c.PTTL(ctx, b.keys.lease(origin)).Val(); ttl < 59*time.Minute {
		t.Errorf("lease TTL after Renew %v; want about an hour", ttl)
	}

	tests := []struct {
		name  string
		setup func(origin string) backend.Lease
	}{
		{"foreign token", func(o string) backend.Lease {
			if _, ok, _, err := b.Lease(ctx, o, time.Minute); err != nil || !ok {
				t.Fatalf("Lease = %v, %v", ok, err)
			}
			return backend.Lease{Token: "someone-else/0"}
		}},
		{"empty token", func(o string) backend.Lease {
			if _, ok, _, err := b.Lease(ctx, o, time.Minute); err != nil || !ok {
				t.Fatalf("Lease = %v, %v", ok, err)
			}
			return backend.Lease{}
		}},
		{"no lease", func(string) backend.Lease { return backend.Lease{Token: "w/1"} }},
		{"wrong type", func(o string) backend.Lease {
			if err := c.RPush(ctx, b.keys.lease(o), "w/1").Err(); err != nil {
				t.Fatal(err)
			}
			return backend.Lease{Token: "w/1"}
		}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := fmt.Sprintf("https://renew%d.example", i)
			l := tc.setup(o)
			before := c.PTTL(ctx, b.keys.lease(o)).Val()
			if err := b.Renew(ctx, o, l, time.Hour); !errors.Is(err, backend.ErrLeaseLost) {
				t.Errorf("Renew = %v; want ErrLeaseLost", err)
			}
			if after := c.PTTL(ctx, b.keys.lease(o)).Val(); after > before {
				t.Errorf("a lost Renew moved the TTL from %v to %v", before, after)
			}
			if !b.Healthy() {
				t.Errorf("a lost lease made the Backend unhealthy")
			}
		})
	}
	// A lease key of another type is taken over by the next Lease.
	o := "https://renew3.example"
	if _, ok, _, err := b.Lease(ctx, o, time.Minute); err != nil || !ok {
		t.Errorf("Lease over a key of another type = %v, %v; want granted", ok, err)
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := b.Renew(cancelled, origin, l, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Renew with a cancelled context = %v", err)
	}
}

// paceValue is a pace key's value, parsed as pacePrelude writes it.
type paceValue struct {
	latest, delay, unclaimed, claimTill int64
	claimedBy, owner                    string
}

// readPace reads and parses the pace key key, failing t when it does not
// have the form "latest kept unclaimed claimTill n claimedBy owner".
func readPace(t *testing.T, c *redis.Client, key string) paceValue {
	t.Helper()
	v, err := c.Get(t.Context(), key).Result()
	if err != nil {
		t.Fatal(err)
	}
	f := strings.SplitN(v, " ", 6)
	if len(f) != 6 {
		t.Fatalf("pace value %q; want six fields", v)
	}
	var nums [5]int64
	for i := range nums {
		if nums[i], err = strconv.ParseInt(f[i], 10, 64); err != nil {
			t.Fatalf("pace value %q: field %d does not parse", v, i)
		}
	}
	n := int(nums[4])
	if n >= len(f[5]) || f[5][n] != ' ' {
		t.Fatalf("pace value %q: the claimant's length %d does not fit", v, n)
	}
	return paceValue{latest: nums[0], delay: nums[1], unclaimed: nums[2], claimTill: nums[3], claimedBy: f[5][:n], owner: f[5][n+1:]}
}

// TestClaimKey: Claim records the claimant (a token with spaces, too) and
// the claim's expiry by Redis's clock; Unclaim clears the claimant and
// records the Unclaim; the owner of the latest start is kept through both.
func TestClaimKey(t *testing.T) {
	t.Parallel()
	s := startRedisServer(t)
	c := newClient(t, "unix", s.Sock)
	b := New(c, WithHeartbeat(-1))
	key := b.keys.pace("claim-key.example")
	const delay, ttl = 200 * time.Millisecond, 5 * time.Second

	before := redisMicros(t, c)
	if w, _, err := b.Claim(t.Context(), "claim-key.example", "w 1/x", delay, ttl); err != nil || w != 0 {
		t.Fatalf("Claim = %v, %v; want granted", w, err)
	}
	after := redisMicros(t, c)
	p := readPace(t, c, key)
	if p.claimedBy != "w 1/x" || p.owner != "w 1/x" || p.latest < before || p.latest > after ||
		p.claimTill != p.latest+ttl.Microseconds() || p.delay != delay.Microseconds() || p.unclaimed != 0 {
		t.Errorf("after Claim: %+v; want claimed and owned by \"w 1/x\" from a start in [%d, %d] until %v later", p, before, after, ttl)
	}
	if err := b.Unclaim(t.Context(), "claim-key.example", "w 1/x"); err != nil {
		t.Fatal(err)
	}
	done := redisMicros(t, c)
	q := readPace(t, c, key)
	if q.claimedBy != "" || q.owner != "w 1/x" || q.unclaimed < after || q.unclaimed > done || q.latest != p.latest {
		t.Errorf("after Unclaim: %+v; want no claimant, the same owner and start, unclaimed in [%d, %d]", q, after, done)
	}
}
