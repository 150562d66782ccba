// Package redisbackend shares robotsext's politeness state across a fleet
// of crawler processes through Redis: each origin's robots.txt is fetched
// once per fleet (a short lease renewed while the fetch runs, fenced
// writes), its record is shared with its HTTP lifetime, each host's
// Crawl-delay is kept by the fleet as a whole (each request's start
// granted by one script timed by Redis's clock), and an operator can
// purge an origin for the whole fleet (Forget, robotsadmin).
//
//	client := redis.NewClient(&redis.Options{
//		Addr:                  "redis:6379",
//		ContextTimeoutEnabled: true, // let the per-call timeouts reach the socket
//	})
//	backend := redisbackend.New(client, redisbackend.WithFleetSize(8)) // the workers you run
//	defer backend.Close(context.Background())
//	ext := robotsext.Apply(c, robotsext.WithBackend(backend))
//
// # Cost
//
// The Extension keeps parsed records in its own near-cache, so a cached
// origin costs no Redis call; a host with a Crawl-delay costs three
// EVALSHA per request (Queue when the request is made, ClaimTurn with its
// token right before it goes on the wire, so that a worker that became
// late pushes the host's next start back for the whole fleet, and
// Unclaim at its answer), and one more each time Queue answers "not
// yet": about once per request, however many workers wait for the host,
// since each waiting request holds a place in the host's queue. The same
// scripts read the host's back-off, so a fleet-wide pause costs a paced
// request no call of its own. Each Backend also refreshes its heartbeat
// every few seconds (see WithHeartbeat) so that FleetSize knows how many
// workers share the pace, each Extension reads the purge log every 2 s
// while it crawls (one XRANGE when nothing was purged) and the pauses
// begun every 0.5 to 5 s (one script, however many hosts are paused), and
// a robots.txt fetch renews its lease once a second.
//
// # Failure
//
// The Backend keeps its calls in flight within the client's pool
// (WithInFlight): a crawl that enqueues thousands of URLs at once makes
// thousands of calls at once, and those beyond the pool wait their turn in
// the process rather than for a connection within their timeout, which
// would fail them as if Redis had; half of the pool is kept for the calls
// of requests in Colly's slots, so that such a burst never holds them up.
//
// Every call is bounded by a short timeout (WithTimeout, 250 ms by
// default) once it has its connection, also with a client made without
// ContextTimeoutEnabled: a
// call Redis does not answer in time, whether it is down, hung or paused
// (CLIENT PAUSE), fails and counts as a failure. Healthy is false from a
// failed call until one succeeds. After several consecutive failures (the
// calls that were in flight together count as one, so that a stall of
// this process is not an outage) a circuit breaker fails every call at
// once with ErrUnavailable for a cool-down, then lets one probe through
// (WithBreaker). The Extension
// answers a failed call by fetching and pacing locally, at the delay
// times FleetSize, so robots.txt stays obeyed and the fleet stays polite
// while Redis is away.
//
// On a Redis Cluster (a redis.ClusterClient) a failure is confined to the
// master it happened on: each master has a breaker of its own, a failed
// call names the node (backend.ScopeError) and the cause its latest dial
// gave ("connection refused" rather than only the timeout), and the
// client's slot map is reloaded after it, which go-redis does not do on a
// connection error. The Backend is a backend.Scoper: the Extension keeps
// the fallback to the hosts whose slots the failing master serves, probes
// it once a second (Probe) and returns its hosts to the shared state as
// soon as it answers or a replica serves their slots.
//
// FleetSize is the fleet's size as the heartbeats show it: by default the
// largest count this Backend has seen, never less, so a worker's fallback
// never speeds up because a restarted Redis forgot the fleet or workers
// left. A worker that never reached Redis knows only itself: give every
// worker WithFleetSize(n), the number of workers you run, so that its
// fallback is safe from the start. Heartbeats scored in the future or
// more than three heartbeats in the past (foreign writes, clock trouble)
// are pruned and never counted. For a while after a failure
// (WithRecoveryGrace) Reserve also books delay × FleetSize, because the
// workers come back to Redis one by one.
//
// Redis keeps paces only in memory: a restart without persistence
// forgets them, which can let one request per host start early, and
// forgets the records, which are fetched again once per fleet. It also
// forgets the purge log: each worker then drops its near-cached records
// once (a purge made just before the restart may have been lost), but
// only after the recovery grace, when the fleet shares Redis again, so
// that each robots.txt is fetched once for the fleet rather than once per
// worker. Values this package cannot read (garbage, a key of another
// type, a start more than a second in the future) are replaced rather
// than failing calls; Start reports such a repair, which the Extension
// counts and logs.
//
// # Eviction
//
// Use maxmemory-policy noeviction. Every key has a TTL, so any other
// policy, volatile-* included, lets a full Redis evict the fleet's
// state: an evicted pace lets a host's next request start at once, an
// evicted lease lets a second worker fetch the same robots.txt. With
// noeviction a full Redis refuses writes instead; those calls fail, and
// the fleet paces locally at delay × FleetSize (slower, never faster)
// until memory is freed. After its first successful call a Backend reads
// the policy (CONFIG GET, where allowed) and logs a warning once
// (WithLogger) when it can evict; EvictionPolicy returns it.
//
// # The first round trip
//
// A worker reads the fleet-wide state once when it starts: its heartbeat
// (and the fleet's size), the eviction policy, the purge log's cursor and
// the pauses in force. The Backend sends them as one pipeline after its
// first successful call, and the Extension's first Purges and
// PausesSince take their answers, instead of four calls racing the
// worker's first requests, each on a connection of its own (boot.go).
//
// # Keys
//
// Every key starts with the prefix (WithPrefix, "robotsext:" by default);
// per-origin and per-host keys carry the host in a Redis Cluster hash
// tag, so that each script touches one slot:
//
//	robotsext:{example.com}:rec:https://example.com     the record (string, encoded, body deflated)
//	robotsext:{example.com}:lease:https://example.com   the fetch lease (string: the holder's token, "<worker id>/<hex>")
//	robotsext:{example.com}:pace                        the pace (string: "latest delay" or "latest delay unclaimed claimTill n claimedBy owner", µs by Redis's clock; see pacePrelude)
//	robotsext:{example.com}:queue                       the host's queue (string: "issued served svc"; see queueRead)
//	robotsext:{example.com}:pause                       the host's back-off (string: "phase until pause probeUntil gap last n probe"; see pauseRead)
//	robotsext:pauses                                    the hosts with a back-off (sorted set: host by when its state ends, µs)
//	robotsext:pauselog                                  the pauses begun in the last five minutes (stream of {host})
//	robotsext:fleet                                     the heartbeats (sorted set: "<worker id>/<hex>" by last seen, ms)
//	robotsext:purges                                    the purge log (stream of {origin, n}, MAXLEN ~1024)
//
// Every key has a TTL: a record lives until Record.KeepUntil (at least a
// minute; 30 days for a good robots.txt, robotsext.MaxStale), a lease for
// its ttl (renewed while its holder fetches), a pace until its latest
// start plus the longer of its delay and backend.MinPaceKeep (a minute),
// plus a second, a queue until its last ticket's turn plus a minute and a
// second, a pause until its phase ends plus five minutes and a second,
// the pause index a second past its latest entry, the pause log six
// minutes after the latest pause began, the fleet set for two heartbeat
// windows after the latest beat, the purge log for 30 days after the
// latest purge.
//
// On Redis Cluster, the keys of one host share its slot, so each script
// runs on one node; the keys without a host (the fleet set, the purge
// log, the pause index and log) each sit alone in their slot. A prefix
// holding '{' or '}' would be every key's hash tag: WithPrefix refuses it
// (ErrBadPrefix).
//
// Worker ids (WithWorkerID; by default "<host name>/<process id>") start
// every lease token, so robotsadmin and Inspect show which worker is
// fetching an origin's robots.txt.
//
// # Memory
//
// Measured with MEMORY USAGE on Redis 7.0: a record with a typical
// robots.txt (about 500 bytes) takes about 570 bytes, one with a 500 KiB
// file about 100 KB (bodies are deflated); a pace key about 120 bytes.
// Over 2,000 origins, used_memory grows by about 810 bytes per origin
// (record and pace, keys and overhead included): a million origins in
// about 0.8 GB.
package redisbackend
