package redisbackend

import "github.com/redis/go-redis/v9"

// The Lua scripts. Each touches the keys of one hash tag only (the fleet
// script its own key), so they run on Redis Cluster. go-redis's
// Script.Run sends EVALSHA and falls back to EVAL when the server does not
// know the script yet (after a restart, for example). Scripts that read
// TIME and then write call redis.replicate_commands first, which Redis 5
// and later do by default and Redis 3.2 and 4 need.

// leaseScript takes the fetch lease of one origin.
//
//	KEYS[1] lease key; ARGV[1] token, ARGV[2] ttl in ms
//
// It returns 0 when the lease is granted (or already held by this token:
// go-redis may retry a call whose reply was lost) and otherwise the
// holder's remaining time in ms (≥ 1). A lease key without a TTL, which
// only a foreign write could leave, is given ARGV[2] so that it cannot
// block the origin for ever.
var leaseScript = redis.NewScript(`
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return 0
end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return 0
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  ttl = tonumber(ARGV[2])
end
if ttl < 1 then
  ttl = 1
end
return ttl
`)

// storeScript writes an origin's record if the caller still holds its
// lease (fencing), and releases the lease.
//
//	KEYS[1] lease key, KEYS[2] record key; ARGV[1] token, ARGV[2] encoded
//	record, ARGV[3] record ttl in ms
//
// It returns 1 when stored and 0 when the lease is not held by ARGV[1].
var storeScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
redis.call('DEL', KEYS[1])
return 1
`)

// reserveScript books the next request start of one host: GCRA with a
// burst of 1, the "latest start" model. Time is Redis's own (TIME), never
// the caller's, so clock skew between workers cannot shorten a gap.
//
//	KEYS[1] pace key; ARGV[1] delay in µs (≥ 0), ARGV[2] margin in µs,
//	ARGV[3] how long a start booked with delay 0 on a host without a
//	pace is kept, in µs
//
// The pace key holds "latest delay": the latest booked start and the
// latest positive delay, in µs (exact in Lua's doubles until the year
// 2255). A delay > 0 books max(now, latest+delay); a delay of 0 books
// max(now, latest) and keeps the stored delay. On a host without a pace,
// a delay of 0 books now and keeps it for ARGV[3]: the Extension books
// its robots.txt request so, before it knows the delay, and the host's
// first page request must count its delay from it. The key expires when
// it stops mattering: its start plus its delay (or ARGV[3] for such a
// mark), plus the margin. The script returns the wait, booked start −
// now, in µs.
var reserveScript = redis.NewScript(`
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local delay = tonumber(ARGV[1])
local latest, kept
local v = redis.call('GET', KEYS[1])
if v then
  local sp = string.find(v, ' ', 1, true)
  if sp then
    latest = tonumber(string.sub(v, 1, sp - 1))
    kept = tonumber(string.sub(v, sp + 1))
  end
end
if latest == nil or kept == nil then
  latest, kept = now - delay, 0
end
if delay > 0 then
  kept = delay
end
local start = latest + delay
if start < now then
  start = now
end
local hold = kept
if hold == 0 then
  hold = tonumber(ARGV[3])
end
local ttl = math.ceil((start - now + hold + tonumber(ARGV[2])) / 1000)
redis.call('SET', KEYS[1], string.format('%.0f %.0f', start, kept), 'PX', string.format('%.0f', ttl))
return start - now
`)

// heartbeatScript renews one worker's entry in the fleet set, prunes the
// entries not renewed within the window and returns how many remain.
//
//	KEYS[1] fleet key; ARGV[1] worker id, ARGV[2] window in ms
var heartbeatScript = redis.NewScript(`
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], string.format('%.0f', now), ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('(%.0f', now - window))
redis.call('PEXPIRE', KEYS[1], string.format('%.0f', 2 * window))
return redis.call('ZCARD', KEYS[1])
`)
