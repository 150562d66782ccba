package main

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// frontier is the crawl's shared work queue in Redis, used by every worker:
//
//	<prefix>{queue}:frontier  list of URLs waiting to be fetched (RPUSH, LPOP)
//	<prefix>{queue}:visited   set of every URL ever queued
//	<prefix>{queue}:inflight  number of URLs claimed and not yet completed
//	<prefix>{queue}:results   hash of each worker's result, JSON by worker id
//
// The keys share the hash tag {queue}, so that the scripts, which touch
// several of them, also run on a Redis Cluster.
//
// # When the crawl is over
//
// A worker cannot stop merely because the list is empty: another worker
// may be fetching a page whose links are about to be pushed. So claim pops
// a URL and increments inflight in one script, a page's links are pushed
// before its claim is completed (decrementing inflight), and claim answers
// finished only when it sees, in the same script, an empty list and
// inflight at 0. Then no URL is queued and none is being fetched, so none
// can ever be queued again: every worker that asks next gets finished too.
// There is no idle timeout to tune, and a slow page (a paced host holds its
// requests for seconds) cannot end the crawl early.
//
// The one thing this does not survive is a worker that dies holding claims:
// inflight then never returns to 0 and the others wait for the run's
// deadline. A production queue would move each claimed URL to a
// per-worker list (LMOVE) and let the fleet re-queue the lists of workers
// whose heartbeat stopped.
type frontier struct {
	rdb  redis.UniversalClient
	keys []string // list, visited, inflight: the scripts' KEYS in that order
	res  string   // the results hash
}

func newFrontier(rdb redis.UniversalClient, prefix string) *frontier {
	p := prefix + "{queue}:"
	return &frontier{
		rdb:  rdb,
		keys: []string{p + "frontier", p + "visited", p + "inflight"},
		res:  p + "results",
	}
}

// claimState is what claim found.
type claimState int

const (
	claimed  claimState = iota // a URL was taken; complete it when its request ends
	drained                    // the list is empty but some URLs are still being fetched
	finished                   // the list is empty and nothing is being fetched: stop
)

var claimScript = redis.NewScript(`
local u = redis.call('LPOP', KEYS[1])
if u then
	redis.call('INCR', KEYS[3])
	return {0, u}
end
if tonumber(redis.call('GET', KEYS[3]) or '0') > 0 then
	return {1, ''}
end
return {2, ''}
`)

// claim takes the next URL from the list, counting it in flight.
func (f *frontier) claim(ctx context.Context) (string, claimState, error) {
	v, err := claimScript.Run(ctx, f.rdb, f.keys).Slice()
	if err != nil {
		return "", 0, fmt.Errorf("claim: %w", err)
	}
	st, _ := v[0].(int64)
	u, _ := v[1].(string)
	return u, claimState(st), nil
}

// complete ends a claim: its request is over and its links are pushed.
func (f *frontier) complete(ctx context.Context) error {
	if err := f.rdb.Decr(ctx, f.keys[2]).Err(); err != nil {
		return fmt.Errorf("complete: %w", err)
	}
	return nil
}

var pushScript = redis.NewScript(`
if redis.call('SADD', KEYS[2], ARGV[1]) == 1 then
	redis.call('RPUSH', KEYS[1], ARGV[1])
	return 1
end
return 0
`)

// push queues u unless some worker queued it before (SADD answers 1 only
// to the first), and reports whether it did.
func (f *frontier) push(ctx context.Context, u string) (bool, error) {
	n, err := pushScript.Run(ctx, f.rdb, f.keys, u).Int()
	if err != nil {
		return false, fmt.Errorf("push %s: %w", u, err)
	}
	return n == 1, nil
}

// queued returns how many URLs were ever queued.
func (f *frontier) queued(ctx context.Context) (int64, error) {
	return f.rdb.SCard(ctx, f.keys[1]).Result()
}
