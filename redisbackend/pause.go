package redisbackend

// This file shares the back-off of hosts that asked for less
// (backend.Pauser): one key per host holds its state, changed by one
// script per call and timed by Redis's clock, and a sorted set indexes
// the hosts that have one, so that each worker learns of them with one
// cheap read.

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/robotsext/robotsext/backend"
)

var _ backend.Pauser = (*Backend)(nil)

// The back-off's constants, as the root module's state machine has them
// (internal/pause, which this module cannot import): how long a probe
// may go unanswered, the gap below which a recovery ends, the first gap's
// cap, and how long a state may lie idle before it is forgotten.
const (
	probeExpiry = 30 * time.Second
	minGap      = 10 * time.Millisecond
	maxFirstGap = 5 * time.Second
	pauseStale  = 5 * time.Minute
	// pauseAhead bounds how far ahead of Redis's clock a stored time may
	// lie: further is a value this package did not write (the largest
	// pause callers ask for is a day), and it is repaired.
	pauseAhead = 24*time.Hour + probeExpiry + time.Minute
)

// pausePrelude reads KEYS[1], a host's back-off, by Redis's clock (TIME,
// in µs): "phase until pause probeUntil gap last n probe", with n the
// length of the probe's token. A value that does not parse, a key of
// another type, or a time more than ARGV[1] µs ahead is deleted and reads
// as no state (phase 0), and repaired is 1; a state idle for ARGV[2] µs
// past its latest time reads as none. save writes the state back (or
// deletes it in phase 0), expiring once it is stale.
const pausePrelude = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local ahead, stale = tonumber(ARGV[1]), tonumber(ARGV[2])
local phase, untl, pause, probeUntil, gap, last, probe = 0, 0, 0, 0, 0, 0, ''
local repaired = 0
local v = redis.pcall('GET', KEYS[1])
if type(v) == 'string' then
  local a, b, c, d, e, f, n, rest = string.match(v, '^(%d) (%d+) (%d+) (%d+) (%d+) (%d+) (%d+) (.*)$')
  if a ~= nil and #rest == tonumber(n) then
    phase, untl, pause, probeUntil = tonumber(a), tonumber(b), tonumber(c), tonumber(d)
    gap, last, probe = tonumber(e), tonumber(f), rest
    if phase > 3 or untl > now + ahead or probeUntil > now + ahead or last > now + ahead or pause > ahead then
      phase, repaired = 0, 1
    end
  else
    repaired = 1
  end
elseif v then
  repaired = 1
end
local function lastTime()
  if phase == 1 then return untl elseif phase == 2 then return probeUntil end
  return last + gap
end
if repaired == 1 then
  redis.call('DEL', KEYS[1])
  phase, untl, pause, probeUntil, gap, last, probe = 0, 0, 0, 0, 0, 0, ''
elseif phase ~= 0 and now >= lastTime() + stale then
  phase = 0
end
local function save()
  if phase == 0 then
    redis.call('DEL', KEYS[1])
    return
  end
  local ttl = math.ceil((lastTime() + stale - now) / 1000) + 1000
  redis.call('SET', KEYS[1], string.format('%d %.0f %.0f %.0f %.0f %.0f %d ', phase, untl, pause, probeUntil, gap, last, #probe) .. probe,
    'PX', string.format('%.0f', ttl))
end
`

// pauseSignalScript is Pause: ARGV[3..5] are Retry-After, the base and
// the limit in µs. It returns {wait, started, capped, repaired, until}.
var pauseSignalScript = redis.NewScript(pausePrelude + `
local ra, base, limit = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local d, capped = 0, 0
if phase == 1 and now < untl then
  if ra > 0 then
    d = math.min(ra, limit)
    if now + d > untl then untl = now + d end
    save()
  end
  return {untl - now, 0, 0, repaired, untl}
elseif phase == 2 or phase == 3 then
  d = math.max(2 * pause, ra)
elseif phase == 1 then
  d = math.max(pause, ra)
else
  d = ra
end
if d <= 0 then d = base end
if d > limit then d, capped = limit, 1 end
phase, untl, pause, probeUntil, gap, last, probe = 1, now + d, d, 0, 0, 0, ''
save()
return {d, 1, capped, repaired, untl}
`)

// pauseAskScript is Ask: ARGV[3] is the token, ARGV[4] the probe's
// expiry in µs. It returns {wait, probe, healthy, repaired}.
var pauseAskScript = redis.NewScript(pausePrelude + `
local token, expiry = ARGV[3], tonumber(ARGV[4])
if phase == 0 then return {0, 0, 1, repaired} end
if phase == 1 then
  if now < untl then return {untl - now, 0, 0, repaired} end
  phase = 2
end
if phase == 2 then
  if probe == '' or probe == token or now >= probeUntil then
    probe, probeUntil = token, now + expiry
    save()
    return {0, 1, 0, repaired}
  end
  save()
  return {probeUntil - now, 0, 0, repaired}
end
if now < last + gap then return {last + gap - now, 0, 0, repaired} end
last = now
save()
return {0, 0, 0, repaired}
`)

// pauseAnsweredScript is Answered: ARGV[3] is the token, ARGV[4] and
// ARGV[5] the smallest gap and the first gap's cap in µs. It returns
// {healthy, repaired}.
var pauseAnsweredScript = redis.NewScript(pausePrelude + `
local token, mingap, maxfirst = ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
if phase == 2 then
  if token == '' or token ~= probe then return {0, repaired} end
  phase, probe, probeUntil = 3, '', 0
  gap, last = math.min(math.floor(pause / 4), maxfirst), now
elseif phase == 3 then
  gap = math.floor(gap / 2)
elseif phase == 0 then
  return {1, repaired}
else
  return {0, repaired}
end
if gap < mingap then phase = 0 end
save()
if phase == 0 then return {1, repaired} end
return {0, repaired}
`)

// pausedScript is Paused: KEYS[1] is the index, ARGV[1] the most hosts
// to return. Entries whose score (µs by Redis's clock) has passed are
// removed first; a key of another type is deleted and reads as empty.
var pausedScript = redis.NewScript(`
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local ok = redis.pcall('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.0f', now))
if type(ok) == 'table' and ok.err then
  redis.call('DEL', KEYS[1])
  return {}
end
return redis.call('ZRANGEBYSCORE', KEYS[1], string.format('(%.0f', now), '+inf', 'LIMIT', 0, tonumber(ARGV[1]))
`)

// pauseArgs are the prelude's arguments.
func pauseArgs(more ...any) []any {
	return append([]any{micros(pauseAhead), micros(pauseStale)}, more...)
}

// Pause implements backend.Pauser with one script (pauseSignalScript) on
// the host's pause key, timed by Redis's clock; a new pause also enters
// the host in the index, for Paused.
func (b *Backend) Pause(ctx context.Context, host string, retryAfter, base, limit time.Duration) (time.Duration, bool, bool, bool, error) {
	key := b.keys.pause(host)
	limit = min(max(limit, time.Millisecond), 24*time.Hour)
	retryAfter = min(max(retryAfter, 0), limit+time.Second) // longer still reads as capped
	base = min(max(base, time.Millisecond), limit)
	var res []int64
	err := b.do(ctx, "pause", key, func(ctx context.Context) error {
		var err error
		res, err = pauseSignalScript.Run(ctx, b.client, []string{key},
			pauseArgs(ceilDiv(retryAfter, time.Microsecond), ceilDiv(base, time.Microsecond), micros(limit))...).Int64Slice()
		return err
	})
	if err != nil {
		return 0, false, false, false, err
	}
	if len(res) != 5 {
		return 0, false, false, false, fmt.Errorf("redisbackend: pause %s: script answered %v", key, res)
	}
	started := res[1] == 1
	if started {
		idx := b.keys.pauses()
		score := float64(res[4] + micros(probeExpiry+pauseStale))
		if err := b.do(ctx, "pause index", idx, func(ctx context.Context) error {
			err := b.client.ZAdd(ctx, idx, redis.Z{Score: score, Member: host}).Err()
			if isWrongType(err) {
				if err = b.client.Del(ctx, idx).Err(); err == nil {
					err = b.client.ZAdd(ctx, idx, redis.Z{Score: score, Member: host}).Err()
				}
			}
			return err
		}); err != nil {
			return 0, false, false, false, err
		}
	}
	return time.Duration(max(res[0], 0)) * time.Microsecond, started, res[2] == 1, res[3] == 1, nil
}

// Ask implements backend.Pauser with one script (pauseAskScript).
func (b *Backend) Ask(ctx context.Context, host, token string) (time.Duration, bool, bool, bool, error) {
	key := b.keys.pause(host)
	var res []int64
	err := b.do(ctx, "ask", key, func(ctx context.Context) error {
		var err error
		res, err = pauseAskScript.Run(ctx, b.client, []string{key}, pauseArgs(token, micros(probeExpiry))...).Int64Slice()
		return err
	})
	if err != nil {
		return 0, false, false, false, err
	}
	if len(res) != 4 {
		return 0, false, false, false, fmt.Errorf("redisbackend: ask %s: script answered %v", key, res)
	}
	return time.Duration(max(res[0], 0)) * time.Microsecond, res[1] == 1, res[2] == 1, res[3] == 1, nil
}

// Answered implements backend.Pauser with one script
// (pauseAnsweredScript); a host back in good health leaves the index.
func (b *Backend) Answered(ctx context.Context, host, token string) (bool, error) {
	key := b.keys.pause(host)
	var res []int64
	err := b.do(ctx, "answered", key, func(ctx context.Context) error {
		var err error
		res, err = pauseAnsweredScript.Run(ctx, b.client, []string{key},
			pauseArgs(token, micros(minGap), micros(maxFirstGap))...).Int64Slice()
		return err
	})
	if err != nil {
		return false, err
	}
	if len(res) != 2 {
		return false, fmt.Errorf("redisbackend: answered %s: script answered %v", key, res)
	}
	if res[0] == 1 {
		idx := b.keys.pauses()
		_ = b.do(ctx, "pause index", idx, func(ctx context.Context) error {
			err := b.client.ZRem(ctx, idx, host).Err()
			if isWrongType(err) {
				err = nil // repaired by the next Paused
			}
			return err
		})
	}
	return res[0] == 1, nil
}

// Paused implements backend.Pauser with one script (pausedScript) on the
// index: one cheap read when no host has a back-off.
func (b *Backend) Paused(ctx context.Context, n int) ([]string, error) {
	if n <= 0 {
		return nil, ctx.Err()
	}
	idx := b.keys.pauses()
	var hosts []string
	err := b.do(ctx, "paused", idx, func(ctx context.Context) error {
		var err error
		hosts, err = pausedScript.Run(ctx, b.client, []string{idx}, n).StringSlice()
		return err
	})
	return hosts, err
}
