package redisbackend

// This file shares the back-off of hosts that asked for less
// (backend.Pauser): one key per host holds its state, changed by one
// script per call and timed by Redis's clock, and a sorted set indexes
// the hosts that have one, so that each worker learns of them with one
// cheap read.

import (
	"context"
	"fmt"
	"strconv"
	"strings"
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

// pauseRead reads a host's back-off from the key pkey by the clock now
// (µs, Redis's TIME), both locals of the script it opens, as are pmax and
// stale: "phase until pause probeUntil gap last n probe", with n the
// length of the probe's token. A value that does not parse, a key of
// another type, or a time more than pmax µs ahead is deleted and reads as
// no state (phase 0), and prepaired is 1; a state idle for stale µs past
// its latest time reads as none. savePause writes the state back (or
// deletes it in phase 0), expiring once it is stale. The scripts that
// pace a host with its back-off (queueScript, claimTurnScript) read it
// beside the pace key: both carry the host's hash tag.
const pauseRead = `
local phase, untl, pause, probeUntil, gap, last, probe = 0, 0, 0, 0, 0, 0, ''
local prepaired = 0
local pv = redis.pcall('GET', pkey)
if type(pv) == 'string' then
  local a, b, c, d, e, f, n, rest = string.match(pv, '^(%d) (%d+) (%d+) (%d+) (%d+) (%d+) (%d+) (.*)$')
  if a ~= nil and #rest == tonumber(n) then
    phase, untl, pause, probeUntil = tonumber(a), tonumber(b), tonumber(c), tonumber(d)
    gap, last, probe = tonumber(e), tonumber(f), rest
    if phase > 3 or untl > now + pmax or probeUntil > now + pmax or last > now + pmax or pause > pmax then
      phase, prepaired = 0, 1
    end
  else
    prepaired = 1
  end
elseif pv then
  prepaired = 1
end
local function lastTime()
  if phase == 1 then return untl elseif phase == 2 then return probeUntil end
  return last + gap
end
if prepaired == 1 then
  redis.call('DEL', pkey)
  phase, untl, pause, probeUntil, gap, last, probe = 0, 0, 0, 0, 0, 0, ''
elseif phase ~= 0 and now >= lastTime() + stale then
  phase = 0
end
local function savePause()
  if phase == 0 then
    redis.call('DEL', pkey)
    return
  end
  local ttl = math.ceil((lastTime() + stale - now) / 1000) + 1000
  redis.call('SET', pkey, string.format('%d %.0f %.0f %.0f %.0f %.0f %d ', phase, untl, pause, probeUntil, gap, last, #probe) .. probe,
    'PX', string.format('%.0f', ttl))
end
`

// pausePrelude opens the Pauser's scripts: KEYS[1] is the host's
// back-off, ARGV[1] how far ahead a time may lie (pmax) and ARGV[2] how
// long an idle state lasts (stale), in µs; see pauseRead.
const pausePrelude = clockPrelude + `
local pkey, pmax, stale = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2])
` + pauseRead

// pauseSignalScript is Pause: ARGV[3..5] are Retry-After, the base and
// the limit in µs. It returns {wait, started, capped, repaired, until}.
var pauseSignalScript = redis.NewScript(pausePrelude + `
local ra, base, limit = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local d, capped = 0, 0
if phase == 1 and now < untl then
  if ra > 0 then
    d = math.min(ra, limit)
    if now + d > untl then untl = now + d end
    savePause()
  end
  return {untl - now, 0, 0, prepaired, untl}
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
savePause()
return {d, 1, capped, prepaired, untl}
`)

// pauseAskScript is Ask: ARGV[3] is the token, ARGV[4] the probe's
// expiry in µs. It returns {wait, probe, healthy, repaired}.
var pauseAskScript = redis.NewScript(pausePrelude + `
local token, expiry = ARGV[3], tonumber(ARGV[4])
if phase == 0 then return {0, 0, 1, prepaired} end
if phase == 1 then
  if now < untl then return {untl - now, 0, 0, prepaired} end
  phase = 2
end
if phase == 2 then
  if probe == '' or probe == token or now >= probeUntil then
    probe, probeUntil = token, now + expiry
    savePause()
    return {0, 1, 0, prepaired}
  end
  savePause()
  return {probeUntil - now, 0, 0, prepaired}
end
if now < last + gap then return {last + gap - now, 0, 0, prepaired} end
last = now
savePause()
return {0, 0, 0, prepaired}
`)

// pauseAnsweredScript is Answered: ARGV[3] is the token, ARGV[4] and
// ARGV[5] the smallest gap and the first gap's cap in µs. It returns
// {healthy, repaired}.
var pauseAnsweredScript = redis.NewScript(pausePrelude + `
local token, mingap, maxfirst = ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
if phase == 2 then
  if token == '' or token ~= probe then return {0, prepaired} end
  phase, probe, probeUntil = 3, '', 0
  gap, last = math.min(math.floor(pause / 4), maxfirst), now
elseif phase == 3 then
  gap = math.floor(gap / 2)
elseif phase == 0 then
  return {1, prepaired}
else
  return {0, prepaired}
end
if gap < mingap then phase = 0 end
savePause()
if phase == 0 then return {1, prepaired} end
return {0, prepaired}
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

// pauseIndexScript enters a host in the index of hosts with a back-off,
// a sorted set scored by when each host's state stops mattering (µs by
// Redis's clock), for Paused and the full reads of PausesSince. It drops
// the entries whose score has passed, and sets the index to expire a
// second after its latest score, so that it never outlives what it
// lists. A key of another type is replaced.
//
//	KEYS[1] the index; ARGV[1] the host, ARGV[2] its score
var pauseIndexScript = redis.NewScript(clockPrelude + `
` + keyKind + `
if kind ~= 'zset' and kind ~= 'none' then
  redis.call('DEL', KEYS[1])
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.0f', now))
local top = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if #top == 2 then
  redis.call('PEXPIREAT', KEYS[1], string.format('%.0f', math.ceil(tonumber(top[2]) / 1000) + 1000))
end
return 1
`)

// pauseLogScript appends a host whose pause began to the pause log, a
// stream whose entry ids are Redis's clock in ms. Entries older than
// ARGV[2] ms are trimmed (MINID, Redis 6.2 and later; before it, the log
// is cut to about ARGV[3] entries), and the log expires a minute after
// that keep once no pause begins. A key of another type is replaced.
//
//	KEYS[1] the log; ARGV[1] the host, ARGV[2] the keep in ms, ARGV[3]
//	the length for servers without MINID
var pauseLogScript = redis.NewScript(clockPrelude + `
` + keyKind + `
if kind ~= 'stream' and kind ~= 'none' then
  redis.call('DEL', KEYS[1])
end
local keep = tonumber(ARGV[2])
redis.call('XADD', KEYS[1], '*', 'host', ARGV[1])
local ok = redis.pcall('XTRIM', KEYS[1], 'MINID', '~', string.format('%.0f', math.floor(now / 1000) - keep))
if type(ok) == 'table' and ok.err then
  redis.call('XTRIM', KEYS[1], 'MAXLEN', '~', ARGV[3])
end
redis.call('PEXPIRE', KEYS[1], keep + 60000)
return 1
`)

// pauseLogReadScript reads the pause log after a cursor: the id of the
// entry read last and the time of that read (ms, Redis's clock). With
// an empty id it returns the id of the latest entry ("0-0" for none).
// Otherwise it returns the entries after the id, at most ARGV[3]: when
// the cursor's read is ARGV[4] ms old or more (or lies ahead of now),
// entries after it may have been trimmed unread, and it returns an empty
// id (lost) instead. The read's time returned is now when every entry
// was returned, and the last entry's time when a full page was (the
// entries after it stay until their own keep).
//
//	KEYS[1] the log; ARGV[1] the id, ARGV[2] the cursor's read time,
//	ARGV[3] the most hosts, ARGV[4] the keep in ms
//
// It returns {id, time, host...}.
var pauseLogReadScript = redis.NewScript(clockPrelude + `
local nowms = math.floor(now / 1000)
local nowstr = string.format('%.0f', nowms)
local keep, n = tonumber(ARGV[4]), tonumber(ARGV[3])
` + keyKind + `
if ARGV[1] == '' then
  if kind == 'stream' then
    local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
    if #last > 0 then
      return {last[1][1], nowstr}
    end
  end
  return {'0-0', nowstr}
end
local at = tonumber(ARGV[2])
if at == nil or nowms - at >= keep or at > nowms + keep then
  return {'', nowstr}
end
if kind ~= 'stream' then
  return {ARGV[1], nowstr}
end
local es = redis.pcall('XRANGE', KEYS[1], ARGV[1], '+', 'COUNT', n + 1)
if es.err then
  return {'', nowstr}
end
local out = {ARGV[1], nowstr}
local got = 0
for _, e in ipairs(es) do
  if e[1] ~= ARGV[1] and got < n then
    got = got + 1
    out[1] = e[1]
    local f = e[2]
    for i = 1, #f - 1, 2 do
      if f[i] == 'host' then
        out[#out + 1] = f[i + 1]
      end
    end
  end
end
if got == n then
  out[2] = string.format('%.0f', math.min(nowms, tonumber(string.match(out[1], '^(%d+)'))))
end
return out
`)

// pauseIndexPageScript reads a page of the index of hosts with a
// back-off, in order of score, after the entry read last (its score and
// member; an empty score from the start), skipping entries whose score
// has passed. Entries that share a score are ordered by member; more than
// 16 sharing the one a page ends on may be skipped (scores are µs of
// Redis's clock). A key of another type reads as empty.
//
//	KEYS[1] the index; ARGV[1] the score, ARGV[2] the member, ARGV[3]
//	the most hosts
//
// It returns {member, score, member, score...}.
var pauseIndexPageScript = redis.NewScript(clockPrelude + `
` + keyKind + `
if kind ~= 'zset' then
  return {}
end
local n, after = tonumber(ARGV[3]), tonumber(ARGV[1])
local from = now
if after ~= nil and after > now then
  from = after
end
local es = redis.call('ZRANGEBYSCORE', KEYS[1], string.format('%.0f', from), '+inf', 'WITHSCORES', 'LIMIT', 0, n + 16)
local out = {}
for i = 1, #es - 1, 2 do
  local s = tonumber(es[i + 1])
  if s > now and (after == nil or s > after or es[i] > ARGV[2]) then
    if #out >= 2 * n then
      break
    end
    out[#out + 1] = es[i]
    out[#out + 1] = es[i + 1]
  end
end
return out
`)

const (
	// pauseLogKeep is how long the pause log keeps an entry: a worker
	// that reads it less often than this reads the index again.
	pauseLogKeep = 5 * time.Minute
	// pauseLogLen bounds the log on a server without XTRIM MINID.
	pauseLogLen = 100000
)

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
		if err := b.announcePause(ctx, host, res[4]+micros(probeExpiry+pauseStale)); err != nil {
			return 0, false, false, false, err
		}
	}
	return time.Duration(max(res[0], 0)) * time.Microsecond, started, res[2] == 1, res[3] == 1, nil
}

// announcePause enters host, whose pause began, in the index (until
// score, µs by Redis's clock) and in the pause log: two calls, since in a
// Cluster neither shares a slot with the host's keys or with the other.
func (b *Backend) announcePause(ctx context.Context, host string, score int64) error {
	idx, log := b.keys.pauses(), b.keys.pauseLog()
	if err := b.do(ctx, "pause index", idx, func(ctx context.Context) error {
		return pauseIndexScript.Run(ctx, b.client, []string{idx}, host, score).Err()
	}); err != nil {
		return err
	}
	return b.do(ctx, "pause log", log, func(ctx context.Context) error {
		return pauseLogScript.Run(ctx, b.client, []string{log}, host, pauseLogKeep.Milliseconds(), pauseLogLen).Err()
	})
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

var _ backend.PauseWatcher = (*Backend)(nil)

// PausesSince implements backend.PauseWatcher with one call each: a full
// read pages through the index (pauseIndexPageScript), its first page in
// one round trip with where the pause log ends (pauseLogReadScript); from
// then on each call reads the log after the cursor, which costs a seek in
// a stream of the last five minutes' pauses however many hosts are
// paused. Cursors are
// "log:<id>:<ms>", the log entry read last and when, by Redis's clock,
// and "all:<id>:<ms>:<score>:<member>", a full read at an entry of the
// index that goes on with the log after <id>. A worker that reads less
// often than every five minutes (pauseLogKeep) reads the index again.
func (b *Backend) PausesSince(ctx context.Context, cursor string, n int) ([]string, string, bool, error) {
	if n < 1 {
		return nil, cursor, false, ctx.Err()
	}
	idx, log := b.keys.pauses(), b.keys.pauseLog()
	parts := strings.SplitN(cursor, ":", 5)
	switch {
	case parts[0] == "log" && len(parts) == 3:
		var res []string
		err := b.do(ctx, "pauses since", log, func(ctx context.Context) error {
			var err error
			res, err = pauseLogReadScript.Run(ctx, b.client, []string{log}, parts[1], parts[2], n, pauseLogKeep.Milliseconds()).StringSlice()
			return err
		})
		switch {
		case err != nil:
			return nil, cursor, false, err
		case len(res) < 2:
			return nil, cursor, false, fmt.Errorf("redisbackend: pauses since %s: script answered %v", log, res)
		case res[0] == "":
			return nil, "", true, nil // lost: read everything again
		}
		hosts := res[2:]
		return hosts, "log:" + res[0] + ":" + res[1], len(hosts) == n, nil
	case parts[0] == "all" && len(parts) == 5:
		var res []string
		err := b.do(ctx, "pauses since", idx, func(ctx context.Context) error {
			var err error
			res, err = pauseIndexPageScript.Run(ctx, b.client, []string{idx}, parts[3], parts[4], n).StringSlice()
			return err
		})
		if err != nil {
			return nil, cursor, false, err
		}
		hosts, next, more := indexPage(res, parts[1], parts[2], n)
		return hosts, next, more, nil
	}
	// A full read: where the log ends, and the index's first page, in one
	// round trip (a pipeline; on a Cluster, one per node), or the Backend's
	// first round trip's.
	if n == bootPauseRead && ctx.Err() == nil {
		if at, res, ok := b.bootPauses(); ok {
			hosts, next, more := indexPage(res, at[0], at[1], n)
			return hosts, next, more, nil
		}
	}
	var tail, page *redis.Cmd
	err := b.do(ctx, "pauses since", idx, func(ctx context.Context) error {
		_, err := b.client.Pipelined(ctx, func(p redis.Pipeliner) error {
			tail = pauseLogReadScript.EvalSha(ctx, p, []string{log}, "", "", n, pauseLogKeep.Milliseconds())
			page = pauseIndexPageScript.EvalSha(ctx, p, []string{idx}, "", "", n)
			return nil
		})
		if redis.HasErrorPrefix(err, "NOSCRIPT") {
			// A server that does not know the scripts yet: Run loads them.
			if tail = pauseLogReadScript.Run(ctx, b.client, []string{log}, "", "", n, pauseLogKeep.Milliseconds()); tail.Err() != nil {
				return tail.Err()
			}
			page = pauseIndexPageScript.Run(ctx, b.client, []string{idx}, "", "", n)
			return page.Err()
		}
		return err
	})
	if err != nil {
		return nil, cursor, false, err
	}
	at, err1 := tail.StringSlice()
	res, err2 := page.StringSlice()
	if err1 != nil || err2 != nil || len(at) != 2 {
		return nil, cursor, false, fmt.Errorf("redisbackend: pauses since %s: scripts answered %v, %v", log, at, res)
	}
	hosts, next, more := indexPage(res, at[0], at[1], n)
	return hosts, next, more, nil
}

// indexPage reads a page of the index (pauseIndexPageScript's answer) of
// a full read that goes on with the log after id, read at ms: the hosts,
// the cursor to give next and whether the index has more. Once the index
// is read the cursor is the log's, from before the read: the pauses begun
// during it that the walk passed by are read there, at the next call.
func indexPage(res []string, id, ms string, n int) (hosts []string, next string, more bool) {
	hosts = make([]string, 0, len(res)/2)
	for i := 0; i+1 < len(res); i += 2 {
		hosts = append(hosts, res[i])
	}
	if len(hosts) < n {
		return hosts, "log:" + id + ":" + ms, false
	}
	score, _ := strconv.ParseFloat(res[len(res)-1], 64)
	return hosts, fmt.Sprintf("all:%s:%s:%.0f:%s", id, ms, score, res[len(res)-2]), true
}
