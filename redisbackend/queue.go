package redisbackend

// This file keeps each host's queue (backend.Queuer): a key beside the
// pace key, in the host's hash tag, holding the last ticket given out,
// the last one that started and the host's service time. Queue and ClaimTurn
// each run one script that reads the pace, the queue and the host's
// back-off together, so a request learns of a pause from the call it
// makes anyway.

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/robotsext/robotsext/backend"
)

var _ backend.Queuer = (*Backend)(nil)

// queueRead reads KEYS[2], the host's queue: "issued served svc granted",
// the last ticket given out, the last that started, the host's service
// time in µs (from a start Queue granted to its Unclaim, erring short; see
// unclaimScript and backend.Queuer) and when Queue granted the latest
// start (µs; a value without it, "issued served svc", reads as 0). A value
// that does not
// parse, or a key of another type, reads as an empty queue and sets
// repaired; a served past issued is cut to it. saveQueue(life) writes it
// back to live life µs. The queue is its own key, not more fields of the
// pace key, so that workers of an earlier version, which read and write
// the pace key, run beside these ones during an upgrade.
const queueRead = `
local issued, served, svc, granted = 0, 0, 0, 0
local qv = redis.pcall('GET', KEYS[2])
if type(qv) == 'string' then
  local a, b, c, d = string.match(qv, '^(%d+) (%d+) (%d+) ?(%d*)$')
  if a ~= nil then
    issued, served, svc = tonumber(a), math.min(tonumber(b), tonumber(a)), tonumber(c)
    granted = tonumber(d) or 0
  else
    repaired = 1
  end
elseif qv then
  repaired = 1
end
local function saveQueue(life)
  redis.call('SET', KEYS[2], string.format('%.0f %.0f %.0f %.0f', issued, served, svc, granted),
    'PX', string.format('%.0f', math.max(math.ceil(life / 1000), 1)))
end
`

// queueScript answers backend.Queuer.Queue for one host in one atomic
// step, by Redis's clock. KEYS[1] is the pace key and ARGV[1..5]
// pacePrelude's, KEYS[2] the queue (queueRead), KEYS[3] the host's
// back-off (pauseRead, with pmax ARGV[7] and stale ARGV[8]); ARGV[6] is
// the request's ticket (0: none), ARGV[9] how long a probe lasts,
// ARGV[10] the cap of a recovery's first gap and ARGV[11] the claims' ttl,
// in µs: a claim expiring more than ARGV[11] + ARGV[3] ahead is broken, and
// dropped (repaired is 1), as claimScript drops it.
//
// While the host is paused it empties the queue and replies the rest of
// the pause. Once the pause has ended the token becomes the probe unless
// another's is in force, which blocks it: it replies a step's wait (the
// step widened to the recovery's first gap) and no new ticket. Then it
// takes a ticket when the
// request has none it knows, and works out when the host is ready (see
// backend.Queuer) and the request's turn. It grants
// when the turn, ready + ahead × step, has come (or the delay is 0): now
// becomes the latest start, owned by the token, the queue's served
// ticket at least the request's, and, recovering, the recovery's latest
// start. The queue lives until the last ticket's turn and a start's keep
// past it. It replies {wait, ticket, ahead, repaired, phase, phaseWait,
// probe}, in µs.
var queueScript = redis.NewScript(pacePrelude + queueRead + `
local pkey, pmax, stale = KEYS[3], tonumber(ARGV[7]), tonumber(ARGV[8])
` + pauseRead + `
local ticket, expiry, maxfirst = tonumber(ARGV[6]), tonumber(ARGV[9]), tonumber(ARGV[10])
local keep = tonumber(ARGV[4]) + tonumber(ARGV[5])
repaired = math.max(repaired, prepaired)
if latest ~= nil and claimedBy ~= '' and claimTill > now + tonumber(ARGV[11]) + slack then
  claimedBy, claimTill, repaired = '', 0, 1
  save()
end
if phase == 1 and now < untl then
  served = issued
  if qv then saveQueue(keep) end
  return {untl - now, 0, 0, repaired, 1, untl - now, 0}
end
local step = delay + math.min(svc, delay)
local ready = 0
local blocked = false
local pphase, pwait, isProbe = 0, 0, 0
if phase == 1 or phase == 2 then
  if token ~= '' and (probe == '' or probe == token or now >= probeUntil) then
    phase, probe, probeUntil = 2, token, now + expiry
    savePause()
    isProbe = 1
  else
    blocked = true
    step = math.max(step, math.min(math.floor(pause / 4), maxfirst))
    ready = now + step
  end
  pphase, pwait = 2, math.max(probeUntil - now, 0)
elseif phase == 3 then
  pphase, pwait = 3, math.max(last + gap - now, 0)
  ready = math.max(ready, last + gap)
end
if blocked then
  if ticket <= 0 or ticket > issued then
    ticket = 0
  end
  return {step, ticket, 0, repaired, pphase, pwait, isProbe}
end
if ticket <= 0 or ticket > issued then
  issued = issued + 1
  ticket = issued
end
local ahead = math.max(ticket - served - 1, 0)
if latest ~= nil then
  ready = math.max(ready, unclaimed + delay)
  if token == '' or owner ~= token then
    ready = math.max(ready, latest + delay)
    if unclaimed <= latest then
      ready = math.max(ready, latest + step)
    end
  end
  if claimedBy ~= '' and claimedBy ~= token and claimTill > now then
    ready = math.max(ready, latest + step, now + delay)
  end
end
local turn = ready + ahead * step
local life = math.max(ready + math.max(issued - served - 1, 0) * step - now, 0) + keep
if delay == 0 or now >= turn then
  if delay > 0 then
    kept = delay
  end
  latest, owner, granted = now, token, now
  served = math.max(served, ticket)
  if phase == 3 then
    last = now
    savePause()
  end
  save()
  saveQueue(life)
  return {0, ticket, 0, repaired, pphase, pwait, isProbe}
end
local wait = math.max(turn - now, 1000)
saveQueue(math.max(life, wait + keep))
if latest == nil and repaired == 1 then
  redis.call('DEL', KEYS[1])
end
return {wait, ticket, ahead, repaired, pphase, pwait, isProbe}
`)

// claimTurnScript answers backend.Queuer.ClaimTurn for one host in one
// atomic step: KEYS[1] is the pace key and ARGV[1..6] claimScript's,
// KEYS[2] the host's back-off (pauseRead, with pmax ARGV[7] and stale
// ARGV[8]), ARGV[9] how long a probe lasts in µs. While the host is
// paused, or probed by another token, it replies the rest of the pause or
// of the probe without claiming; once the pause has ended and nobody
// probes, the token becomes the probe; then it is claimBody. It replies
// {wait, repaired, phase, phaseWait, probe}, in µs.
var claimTurnScript = redis.NewScript(pacePrelude + `
local pkey, pmax, stale = KEYS[2], tonumber(ARGV[7]), tonumber(ARGV[8])
` + pauseRead + `
local expiry = tonumber(ARGV[9])
local pphase, pwait, isProbe = 0, 0, 0
local function reply(wait) return {wait, math.max(repaired, prepaired), pphase, pwait, isProbe} end
if phase == 1 and now < untl then
  pphase, pwait = 1, untl - now
  return reply(untl - now)
end
if phase == 1 or phase == 2 then
  if token == '' or (probe ~= '' and probe ~= token and now < probeUntil) then
    pphase, pwait = 2, math.max(probeUntil - now, 0)
    return reply(math.max(probeUntil - now, 1000))
  end
  phase, probe, probeUntil = 2, token, now + expiry
  savePause()
  pphase, pwait, isProbe = 2, expiry, 1
elseif phase == 3 then
  pphase, pwait = 3, math.max(last + gap - now, 0)
end
` + claimBody)

// queueArgs are the arguments of queueScript and claimTurnScript after
// pacePrelude's: the ticket or the ttl, then the back-off's, then the ttl
// again (queueScript's ARGV[11]).
func queueArgs(token string, delay time.Duration, sixth int64, ttl time.Duration) []any {
	return []any{token, ceilDiv(delay, time.Microsecond), micros(futureSlack), micros(zeroMarkKeep), micros(paceMargin),
		sixth, micros(pauseAhead), micros(pauseStale), micros(probeExpiry), micros(maxFirstGap), ceilDiv(ttl, time.Microsecond)}
}

// Queue implements backend.Queuer with one script (queueScript) on the
// host's pace key, its queue key and its back-off key, timed by Redis's
// clock. Delays are rounded up to the microsecond.
func (b *Backend) Queue(ctx context.Context, host, token string, ticket int64, delay, ttl time.Duration) (backend.Turn, error) {
	keys := []string{b.keys.pace(host), b.keys.queue(host), b.keys.pause(host)}
	var res []int64
	err := b.do(ctx, "queue", keys[0], func(ctx context.Context) error {
		var err error
		res, err = queueScript.Run(ctx, b.client, keys, queueArgs(token, max(delay, 0), max(ticket, 0), max(ttl, 0))...).Int64Slice()
		return err
	})
	if err != nil {
		return backend.Turn{}, err
	}
	if len(res) != 7 {
		return backend.Turn{}, fmt.Errorf("redisbackend: queue %s: script answered %v", keys[0], res)
	}
	return backend.Turn{
		Wait:     microsOf(res[0]),
		Ticket:   res[1],
		Ahead:    res[2],
		Repaired: res[3] == 1,
		Pause:    pauseState(res[4], res[5], res[6]),
	}, nil
}

// ClaimTurn implements backend.Queuer with one script (claimTurnScript)
// on the host's pace key and its back-off key.
func (b *Backend) ClaimTurn(ctx context.Context, host, token string, delay, ttl time.Duration) (backend.Turn, error) {
	keys := []string{b.keys.pace(host), b.keys.pause(host)}
	var res []int64
	err := b.do(ctx, "claim", keys[0], func(ctx context.Context) error {
		var err error
		args := queueArgs(token, max(delay, 0), ceilDiv(max(ttl, 0), time.Microsecond), ttl)
		res, err = claimTurnScript.Run(ctx, b.client, keys, args[:9]...).Int64Slice()
		return err
	})
	if err != nil {
		return backend.Turn{}, err
	}
	if len(res) != 5 {
		return backend.Turn{}, fmt.Errorf("redisbackend: claim %s: script answered %v", keys[0], res)
	}
	return backend.Turn{Wait: microsOf(res[0]), Repaired: res[1] == 1, Pause: pauseState(res[2], res[3], res[4])}, nil
}

// microsOf returns n µs as a Duration, at least 0.
func microsOf(n int64) time.Duration { return time.Duration(max(n, 0)) * time.Microsecond }

// pauseState reads a script's phase, the phase's wait in µs and the probe
// flag.
func pauseState(phase, wait, probe int64) backend.PauseState {
	var p backend.PausePhase
	switch phase {
	case 1:
		p = backend.PhasePaused
	case 2:
		p = backend.PhaseProbing
	case 3:
		p = backend.PhaseRecovering
	}
	return backend.PauseState{Phase: p, Wait: microsOf(wait), Probe: probe == 1}
}
