// Package backend is the contract for the politeness state a crawl shares
// beyond one robotsext.Extension: each origin's robots.txt record, the
// lease that lets one worker fetch it, and each host's pace. A user of
// robotsext.Apply needs none of it until collectors of several processes
// share one crawl (robotsext.WithBackend). Memory implements it in one
// process; the nested module redisbackend implements it over Redis for a
// fleet of worker processes; the package backendtest is the contract
// every implementation must pass.
//
// # What a Backend may implement
//
// Backend is the one required interface; each other one is optional, found
// by a type assertion on the value given to robotsext.WithBackend, and
// buys the fleet one more guarantee. Memory implements all but FleetSizer;
// redisbackend implements all of them.
//
//   - Backend (required): Load and Store each origin's Record, Lease its
//     fetch to one worker, and Reserve each host's next start. Alone, it
//     gives one robots.txt fetch per origin for the fleet and a Crawl-delay
//     kept by booked slots: a request books its slot at the gate (taking
//     one of Colly's parallelism slots while it waits), spaced by the
//     delay plus a small margin for the time between a worker's gate and
//     the wire, which the other workers cannot see.
//   - Starter: each start is asked for when the request is ready (Start),
//     outside Colly's parallelism slots, and confirmed with the same token
//     right before the wire, so that a worker that became late pushes the
//     fleet's next start back instead of crowding it. Without it: Reserve,
//     as above. With it, Reserve is no longer called.
//   - Claimer (a Starter too): a request claims its host for the fleet
//     from its gate until its response headers arrive (Claim, then
//     Unclaim); the next start anywhere is at least the delay after the
//     unclaim, which the server saw after the request, however late the
//     claiming worker ran before the wire. Without it: a Starter's
//     confirmation at the gate, spaced by the delay plus the margin. With
//     it, the gate calls Claim instead of Start's confirmation; Start is
//     still asked in the OnRequest hook, and records the robots.txt
//     request.
//   - Queuer (a Claimer too): each host keeps a first-come first-served
//     queue of the requests waiting to start, and a request asks again
//     when its turn is near (Queue), so that a host's cost in backend
//     calls per request stays the same however many workers wait for it;
//     with a Pauser, each answer also carries the host's back-off
//     (ClaimTurn at the gate refuses the wire while the host is paused),
//     so that a worker learns a pause from the calls its requests make
//     anyway. Without it: every waiting request asks Start again at each
//     delay, and a worker learns other workers' pauses from Paused.
//   - LeaseRenewer: the Extension takes short leases (a few seconds) and
//     renews them while its fetch runs, so a worker that dies mid-fetch
//     delays its origin's robots.txt by seconds. Without it: each lease
//     lasts the whole fetch timeout and a margin.
//   - Forgetter: Extension.Forget deletes the shared record and every
//     worker drops its near-cached copy (Purges). Without it: Forget drops
//     only this Extension's copy.
//   - FleetSizer: while the Backend fails, each worker paces a host locally
//     at its delay times the fleet size, so the fleet together keeps the
//     delay. Without it: each worker paces at the delay alone (a fleet of
//     n may then send n times the rate until the Backend answers again).
//   - Pauser: the back-off of hosts that asked for less (429, 503, a run
//     of 5xx) is shared: a pause one worker sees applies to every worker,
//     and the fleet sends one probe when it ends. Without it: each worker
//     pauses and probes on its own.
//   - PauseWatcher (a Pauser too): a log of the pauses begun, read after
//     a cursor (PausesSince), so that a worker learns of new pauses,
//     those of hosts its requests make no call about included, with a
//     read whose cost does not grow with the hosts paused. Without it:
//     Paused, which lists them all (up to a bound) at each read.
//
// When several are present the Extension uses each for its own job; the
// overlaps are the pace, where it takes the most precise one: Queuer,
// else Claimer, else Starter, else Reserve; and the read of the fleet's
// paused hosts: PausesSince, else Paused.
package backend
