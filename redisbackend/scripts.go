package redisbackend

import "github.com/redis/go-redis/v9"

// The Lua scripts. Each touches the keys of one hash tag only (the fleet
// script its own key), so they run on Redis Cluster. go-redis's
// Script.Run sends EVALSHA and falls back to EVAL when the server does not
// know the script yet (after a restart, for example). Scripts that read
// TIME and then write call redis.replicate_commands first, which Redis 5
// and later do by default and Redis 3.2 and 4 need.

// keyKind is a script prelude that reads the type of KEYS[1] into kind
// ("none" when there is no key), as RESP2 and RESP3 servers give TYPE's
// status reply (a string, or a table with the string at "ok").
const keyKind = `
local kind = redis.call('TYPE', KEYS[1])
if type(kind) == 'table' then
  kind = kind['ok']
end
`

// leaseScript takes the fetch lease of one origin.
//
//	KEYS[1] lease key; ARGV[1] token, ARGV[2] ttl in ms
//
// It returns 0 when the lease is granted (or already held by this token:
// go-redis may retry a call whose reply was lost) and otherwise the
// holder's remaining time in ms (≥ 1). A lease key without a TTL, which
// only a foreign write could leave, is given ARGV[2] so that it cannot
// block the origin for ever; one of another type than a string is
// replaced.
var leaseScript = redis.NewScript(`
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return 0
end
local v = redis.pcall('GET', KEYS[1])
if type(v) == 'table' then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 0
end
if v == ARGV[1] then
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
// It returns 1 when stored and 0 when the lease is not held by ARGV[1]
// (a lease key of another type than a string is held by nobody).
var storeScript = redis.NewScript(`
if redis.pcall('GET', KEYS[1]) ~= ARGV[1] then
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
//	ARGV[3] how long a start is kept at least, in µs
//	(backend.MinPaceKeep)
//
// The pace key holds "latest delay" or, written by the other pace scripts,
// those two and more (see pacePrelude): the latest start and the latest
// positive delay, in µs
// (exact in Lua's doubles until the year 2255). A delay > 0 books
// max(now, latest+delay); a delay of 0 books max(now, latest) and keeps
// the stored delay. A value that does not parse, or a key of another
// type, counts as no pace and is replaced. The key expires when it stops
// mattering: its start plus the longer of its delay and ARGV[3] (so that
// the robots.txt request, booked with delay 0 before the delay is known,
// still counts for the host's first page), plus the margin. The script
// returns the wait, booked start − now, in µs.
var reserveScript = redis.NewScript(`
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local delay = tonumber(ARGV[1])
local latest, kept
local v = redis.pcall('GET', KEYS[1])
if type(v) == 'string' then
  local a, b = string.match(v, '^(%d+) (%d+)')
  latest, kept = tonumber(a), tonumber(b)
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
local keep = math.max(kept, tonumber(ARGV[3]))
local ttl = math.ceil((start - now + keep + tonumber(ARGV[2])) / 1000)
redis.call('SET', KEYS[1], string.format('%.0f %.0f', start, kept), 'PX', string.format('%.0f', ttl))
return start - now
`)

// clockPrelude opens the scripts that read Redis's clock: now is TIME in
// µs (exact in Lua's doubles until the year 2255).
const clockPrelude = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
`

// pacePrelude opens the scripts that read and write a host's pace key
// (startScript, claimScript, unclaimScript): it reads Redis's clock and the
// key, and defines save, which writes the key back with its expiry.
//
//	KEYS[1] pace key; ARGV[1] token, ARGV[2] delay in µs (≥ 0),
//	ARGV[3] how far in the future a time may lie before it is treated as
//	broken, in µs, ARGV[4] how long a start is kept at least, in µs
//	(backend.MinPaceKeep), ARGV[5] margin in µs
//
// The pace key's value is "latest kept unclaimed claimTill n claimedBy
// owner": the latest start granted, the latest positive delay, when the
// latest claim ended (Unclaim) and when the current claim expires (µs);
// the length n of claimedBy, the token claiming the host (empty when
// none), a space, and the token the latest start was granted to, the rest
// of the value (tokens may contain spaces; owner is empty after a
// Reserve, which writes "latest kept"). Values written by earlier
// versions, "latest kept owner", read as claimed by nobody. The names are
// the scripts' own; the value stores numbers and tokens by position only.
// A value that does not parse, a key of another type, or a start or Unclaim more
// than ARGV[3] ahead of now reads as no pace at all (latest is nil) and
// sets repaired. The key expires once nothing in it matters: the latest
// start plus the longer of its delay and ARGV[4], the latest Unclaim plus
// the delay, and the claim's expiry, whichever is latest, plus the margin.
const pacePrelude = clockPrelude + `
local token = ARGV[1]
local delay = tonumber(ARGV[2])
local slack = tonumber(ARGV[3])
local latest, kept, unclaimed, claimTill, claimedBy, owner
local repaired = 0
local v = redis.pcall('GET', KEYS[1])
if type(v) == 'string' then
  local a, b, c, d, n, rest = string.match(v, '^(%d+) (%d+) (%d+) (%d+) (%d+) (.*)$')
  if a ~= nil then
    n = tonumber(n)
    if string.sub(rest, n + 1, n + 1) == ' ' then
      claimedBy, owner = string.sub(rest, 1, n), string.sub(rest, n + 2)
    end
  else
    a, b, rest = string.match(v, '^(%d+) (%d+)(.*)$')
    c, d, claimedBy = '0', '0', ''
    if rest == '' then
      owner = ''
    elseif rest ~= nil and string.sub(rest, 1, 1) == ' ' then
      owner = string.sub(rest, 2)
    end
  end
  latest, kept, unclaimed, claimTill = tonumber(a), tonumber(b), tonumber(c), tonumber(d)
  if latest == nil or kept == nil or unclaimed == nil or claimTill == nil or claimedBy == nil or owner == nil
      or latest > now + slack or unclaimed > now + slack then
    latest, repaired = nil, 1
  end
elseif v then
  repaired = 1
end
if latest == nil then
  kept, unclaimed, claimTill, claimedBy, owner = 0, 0, 0, '', ''
end
local function save()
  local life = math.max(latest + math.max(kept, tonumber(ARGV[4])), unclaimed + kept)
  if claimedBy ~= '' then
    life = math.max(life, claimTill)
  end
  local ttl = math.ceil((life - now + tonumber(ARGV[5])) / 1000)
  redis.call('SET', KEYS[1], string.format('%.0f %.0f %.0f %.0f %d ', latest, kept, unclaimed, claimTill, #claimedBy) .. claimedBy .. ' ' .. owner,
    'PX', string.format('%.0f', ttl))
end
`

// startScript answers backend.Starter.Start for one host, by Redis's
// clock (TIME), in one atomic step; its keys and arguments are
// pacePrelude's. With no start known, at least the delay past the latest,
// a delay of 0, or the owner's own token, it grants: it records now as
// the latest start, owned by the token, and returns {0, repaired}.
// Otherwise it returns {wait, repaired}, the µs until latest + delay.
var startScript = redis.NewScript(pacePrelude + `
if latest ~= nil and delay > 0 and (token == '' or owner ~= token) then
  local wait = latest + delay - now
  if wait > 0 then
    return {wait, repaired}
  end
end
if delay > 0 then
  kept = delay
end
latest, owner = now, token
save()
return {0, repaired}
`)

// claimBody is the rest of claimScript and claimTurnScript, after
// pacePrelude: ARGV[6] is the claim's ttl in µs, and the script defines
// reply(wait), its answer. A claim expiring more than ARGV[6] + ARGV[3]
// ahead of now is broken: it is dropped and repaired is 1. While another
// token's claim is in force it replies the longer of the time until
// latest + delay and half the delay (at least a millisecond): the other
// token's Unclaim is seen before the delay after it passes. Otherwise it
// waits until the latest Unclaim + delay and, when the token does not own
// the latest start, latest + delay; once both have passed (or no start
// is known, or the delay is 0) it grants (replies 0): now becomes the
// latest start, owned and claimed by the token until now + ARGV[6].
const claimBody = `
local ttl = tonumber(ARGV[6])
if claimedBy ~= '' and claimTill > now + ttl + slack then
  claimedBy, claimTill, repaired = '', 0, 1
end
if latest ~= nil and delay > 0 then
  if claimedBy ~= '' and claimedBy ~= token and claimTill > now then
    return reply(math.max(latest + delay - now, math.floor(delay / 2), 1000))
  end
  local ready = unclaimed + delay
  if owner ~= token then
    ready = math.max(ready, latest + delay)
  end
  if ready > now then
    return reply(ready - now)
  end
end
if delay > 0 then
  kept = delay
  if token ~= '' then
    claimedBy, claimTill = token, now + ttl
  end
end
latest, owner = now, token
save()
return reply(0)
`

// claimScript answers backend.Claimer.Claim for one host in one atomic
// step: pacePrelude and claimBody, replying {wait, repaired}.
var claimScript = redis.NewScript(pacePrelude + `
local function reply(wait) return {wait, repaired} end
` + claimBody)

// unclaimScript answers backend.Claimer.Unclaim for one host: when the
// token claims it, the claim ends and now becomes the latest Unclaim. Its
// arguments are pacePrelude's (the delay is not used), its keys the pace
// key and the host's queue (queueRead). When the token also owns the
// latest start, the claim's own, the time since it (since Queue's grant,
// when the claim followed one within the delay) is a sample of the
// queue's service time, if the host has a queue: a shorter sample
// replaces it, a longer one moves it (from 0 at first) an eighth of the
// way (erring short:
// queued requests then come back early rather than late). It returns 1
// when a claim ended, 0 otherwise.
var unclaimScript = redis.NewScript(pacePrelude + `
if latest == nil or token == '' or claimedBy ~= token then
  return 0
end
claimedBy, claimTill = '', 0
unclaimed = math.max(unclaimed, now)
save()
if owner == token then
  local qv = redis.pcall('GET', KEYS[2])
  if type(qv) == 'string' then
    local a, b, c, d = string.match(qv, '^(%d+) (%d+) (%d+) ?(%d*)$')
    local life = redis.call('PTTL', KEYS[2])
    if a ~= nil and life > 0 then
      local from, granted = latest, tonumber(d) or 0
      if granted > 0 and granted <= latest and latest - granted <= kept then
        from = granted -- the claim followed Queue's grant: count from the grant
      end
      local svc, sample = tonumber(c), math.max(now - from, 0)
      if sample < svc then
        svc = sample
      else
        svc = svc + math.floor((sample - svc) / 8)
      end
      redis.call('SET', KEYS[2], string.format('%s %s %.0f %.0f', a, b, svc, granted), 'PX', life)
    end
  end
end
return 1
`)

// renewScript extends a fetch lease if the caller still holds it.
//
//	KEYS[1] lease key; ARGV[1] token, ARGV[2] ttl in ms
//
// It returns 1 when renewed and 0 when the lease is not held by ARGV[1].
var renewScript = redis.NewScript(`
if redis.pcall('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`)

// heartbeatScript renews one worker's entry in the fleet set, prunes the
// entries not renewed within the window and those scored more than the
// window ahead of Redis's time (ghosts: a foreign write, or entries made
// by a node whose clock was ahead), and returns how many remain. A key of
// another type than a sorted set is replaced.
//
//	KEYS[1] fleet key; ARGV[1] member, ARGV[2] window in ms
var heartbeatScript = redis.NewScript(`
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[2])
` + keyKind + `
if kind ~= 'zset' and kind ~= 'none' then
  redis.call('DEL', KEYS[1])
end
redis.call('ZADD', KEYS[1], string.format('%.0f', now), ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('(%.0f', now - window))
redis.call('ZREMRANGEBYSCORE', KEYS[1], string.format('(%.0f', now + window), '+inf')
redis.call('PEXPIRE', KEYS[1], string.format('%.0f', 2 * window))
return redis.call('ZCARD', KEYS[1])
`)

// purgeScript appends an origin to the purge log, a stream trimmed to
// about ARGV[2] entries, and renews the log's TTL. Each entry carries a
// random nonce besides the origin: a log that was deleted and started
// again can give out the ids of the old one again (ids restart at the
// current millisecond), and the nonce tells a reader's cursor apart from
// a new entry with its id. A key of another type than a stream is
// replaced (the readers' cursors then ask them to drop everything, which
// is safe).
//
//	KEYS[1] purge log key; ARGV[1] origin, ARGV[2] length, ARGV[3] ttl in
//	ms, ARGV[4] nonce
//
// It returns the entry's id.
var purgeScript = redis.NewScript(`
` + keyKind + `
if kind ~= 'stream' and kind ~= 'none' then
  redis.call('DEL', KEYS[1])
end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', 'origin', ARGV[1], 'n', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return id
`)

// purgeCursorScript returns the id and the nonce of the purge log's
// latest entry: the cursor after every purge logged so far. A log that
// does not exist (none was ever made, or it expired, or Redis restarted
// empty) is started with a marker entry, so that every cursor given out
// names an entry the next read can look for; a key of another type is
// replaced.
//
//	KEYS[1] purge log key; ARGV[1] length, ARGV[2] ttl in ms, ARGV[3]
//	the marker's nonce
//
// It returns {id, nonce} ("" for an entry without one).
var purgeCursorScript = redis.NewScript(`
` + keyKind + `
if kind == 'stream' then
  local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
  if #last > 0 then
    local fields = last[1][2]
    for i = 1, #fields - 1, 2 do
      if fields[i] == 'n' then
        return {last[1][1], fields[i + 1]}
      end
    end
    return {last[1][1], ''}
  end
elseif kind ~= 'none' then
  redis.call('DEL', KEYS[1])
end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'start', '1', 'n', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {id, ARGV[3]}
`)
