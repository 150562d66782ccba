package backendtest

// This file checks Queuer, each host's first-come first-served queue and
// the back-off answered with it, and PauseWatcher, the log of pauses
// begun, for backends that implement them. As elsewhere, waits are read
// with a delay of an hour where the contract allows; what must be seen in
// real time (a dead ticket skipped, a pause's end) uses tens of
// milliseconds and polls.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/robotsext/robotsext/backend"
)

// queuer returns b as a Queuer, or skips t.
func queuer(t *testing.T, b backend.Backend) backend.Queuer {
	t.Helper()
	q, ok := b.(backend.Queuer)
	if !ok {
		t.Skip("the backend is not a Queuer")
	}
	return q
}

// mustQueue calls Queue and fails t on an error or a repair.
func mustQueue(t *testing.T, q backend.Queuer, host, token string, ticket int64, delay time.Duration) backend.Turn {
	t.Helper()
	turn, err := q.Queue(ctx(t), host, token, ticket, delay, paceDelay)
	if err != nil {
		t.Fatalf("Queue(%q, %q, %d, %v): %v", host, token, ticket, delay, err)
	}
	if turn.Repaired {
		t.Errorf("Queue(%q, %q) reports a repair of state the contract wrote itself", host, token)
	}
	if turn.Wait < 0 || (turn.Wait > 0 && turn.Wait < time.Millisecond) {
		t.Errorf("Queue(%q, %q) waits %v; want 0 or at least a millisecond", host, token, turn.Wait)
	}
	return turn
}

// mustClaimTurn calls ClaimTurn and fails t on an error or a repair.
func mustClaimTurn(t *testing.T, q backend.Queuer, host, token string, delay, ttl time.Duration) backend.Turn {
	t.Helper()
	turn, err := q.ClaimTurn(ctx(t), host, token, delay, ttl)
	if err != nil {
		t.Fatalf("ClaimTurn(%q, %q, %v, %v): %v", host, token, delay, ttl, err)
	}
	if turn.Repaired {
		t.Errorf("ClaimTurn(%q, %q) reports a repair of state the contract wrote itself", host, token)
	}
	return turn
}

// callSlack is how much the time the calls themselves take may blur a
// wait read with a delay of an hour.
const callSlack = time.Minute

// testQueueSequence: with a delay of an hour, a fresh host is granted at
// once and its owner again; the next ticket waits about a delay, each one
// after it a step more; asking again keeps the place; at the wire the
// owner claims and the others wait.
func testQueueSequence(t *testing.T, b backend.Backend) {
	q := queuer(t, b)
	const host = "queue.example"
	a := mustQueue(t, q, host, "a", 0, paceDelay)
	if a.Wait != 0 || a.Ticket < 1 || a.Pause != (backend.PauseState{}) {
		t.Fatalf("Queue on a fresh host = %+v; want granted with a ticket, healthy", a)
	}
	if again := mustQueue(t, q, host, "a", a.Ticket, paceDelay); again.Wait != 0 {
		t.Errorf("the owner's Queue with its ticket waits %v; want it granted again", again.Wait)
	}
	bt := mustQueue(t, q, host, "b", 0, paceDelay)
	ct := mustQueue(t, q, host, "c", 0, paceDelay)
	if bt.Ticket <= a.Ticket || ct.Ticket <= bt.Ticket {
		t.Errorf("tickets %d, %d, %d; want them increasing", a.Ticket, bt.Ticket, ct.Ticket)
	}
	if bt.Ahead != 0 || bt.Wait < paceDelay-callSlack || bt.Wait > 2*paceDelay {
		t.Errorf("the second ticket: %+v; want none ahead, a wait of about a delay", bt)
	}
	if ct.Ahead != 1 || ct.Wait < bt.Wait+paceDelay-callSlack || ct.Wait > 4*paceDelay {
		t.Errorf("the third ticket: %+v; want one ahead, a delay after the second (%v)", ct, bt.Wait)
	}
	if dt := mustQueue(t, q, host, "d", 0, paceDelay); dt.Ahead != 2 || dt.Wait < ct.Wait+paceDelay-callSlack || dt.Wait > 4*paceDelay {
		t.Errorf("the fourth ticket: %+v; want two ahead, a delay after the third (%v)", dt, ct.Wait)
	}
	if again := mustQueue(t, q, host, "c", ct.Ticket, paceDelay); again.Ticket != ct.Ticket || again.Ahead != 1 || again.Wait > ct.Wait {
		t.Errorf("asking again with the ticket = %+v; want the same place (%+v)", again, ct)
	}
	if w := mustClaimTurn(t, q, host, "b", paceDelay, paceDelay); w.Wait == 0 {
		t.Error("ClaimTurn granted a token that does not own the latest start, a delay early")
	}
	if w := mustClaimTurn(t, q, host, "a", paceDelay, paceDelay); w.Wait != 0 {
		t.Errorf("ClaimTurn of the owner waits %v; want it granted", w.Wait)
	}
	if w := mustQueue(t, q, "other-queue.example", "c", 0, paceDelay); w.Wait != 0 {
		t.Errorf("another host waits %v; want hosts independent", w.Wait)
	}
}

// testQueueSpreads: of many requests queueing at once behind a start,
// each gets its own place and a wait a delay after the place before: the
// requests ask again one at a time, not all at each delay.
func testQueueSpreads(t *testing.T, b backend.Backend) {
	q := queuer(t, b)
	const host, n = "crowd-queue.example", 16
	mustQueue(t, q, host, "first", 0, paceDelay)
	turns := make([]backend.Turn, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			turn, err := q.Queue(ctx(t), host, fmt.Sprintf("token-%d", i), 0, paceDelay, paceDelay)
			if err != nil {
				t.Error(err)
			}
			turns[i] = turn
		}()
	}
	wg.Wait()
	slices.SortFunc(turns, func(x, y backend.Turn) int { return int(x.Ahead - y.Ahead) })
	for i, turn := range turns {
		if turn.Ahead != int64(i) || turn.Wait == 0 {
			t.Fatalf("places of %d concurrent Queues: %+v; want one each, 0 to %d ahead, none granted", n, turns, n-1)
		}
		if i > 0 && turn.Wait < turns[i-1].Wait+paceDelay-callSlack {
			t.Errorf("the wait with %d ahead is %v, with %d ahead %v; want a delay between them", i, turn.Wait, i-1, turns[i-1].Wait)
		}
		if turn.Wait > time.Duration(turn.Ahead+2)*2*paceDelay {
			t.Errorf("the wait with %d ahead is %v; want at most %d steps", i, turn.Wait, turn.Ahead+2)
		}
	}
}

// testQueueSkipsDeadTicket: a ticket ahead whose request never comes back
// holds the next one back by a step, no more. Real time: a delay of 30 ms.
func testQueueSkipsDeadTicket(t *testing.T, b backend.Backend) {
	q := queuer(t, b)
	const host, delay = "dead-ticket.example", 30 * time.Millisecond
	mustQueue(t, q, host, "a", 0, delay)
	mustClaimTurn(t, q, host, "a", delay, time.Minute)
	mustUnclaim(t, q, host, "a")
	dead := mustQueue(t, q, host, "dead", 0, delay)
	c := mustQueue(t, q, host, "c", 0, delay)
	if dead.Ahead != 0 || c.Ahead != 1 {
		t.Fatalf("places %+v and %+v; want 0 and 1 ahead", dead, c)
	}
	time.Sleep(c.Wait)
	deadline := time.Now().Add(10 * time.Second)
	for {
		turn := mustQueue(t, q, host, "c", c.Ticket, delay)
		if turn.Wait == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the ticket behind a dead one still waits %v after ten seconds", turn.Wait)
		}
		time.Sleep(turn.Wait)
	}
	// The skipped ticket comes back late: it goes next, with nobody ahead.
	if late := mustQueue(t, q, host, "dead", dead.Ticket, delay); late.Ahead != 0 || late.Wait == 0 {
		t.Errorf("the late ticket = %+v; want it first in line, waiting for c's start", late)
	}
}

// testQueueServiceTime: the time a claim took to be unclaimed widens the
// step between places, an eighth of it at first, and a shorter one
// narrows it again. Seen with a delay of an hour and claims of about
// 800 ms and about none.
func testQueueServiceTime(t *testing.T, b backend.Backend) {
	q := queuer(t, b)
	const host, held = "service.example", 800 * time.Millisecond
	step := func() time.Duration {
		t.Helper()
		mustQueue(t, q, host, "b", 0, paceDelay)
		ct := mustQueue(t, q, host, "c", 0, paceDelay)
		dt := mustQueue(t, q, host, "d", 0, paceDelay)
		return dt.Wait - ct.Wait
	}
	mustQueue(t, q, host, "a", 0, paceDelay)
	mustClaimTurn(t, q, host, "a", paceDelay, paceDelay)
	time.Sleep(held)
	mustUnclaim(t, q, host, "a")
	s1 := step()
	if s1 < paceDelay+held/16 || s1 > paceDelay+held/4 {
		t.Errorf("places a step apart: %v; want the step to count an eighth of the claim's %v", s1, held)
	}
	// A quick request, paced by a millisecond (behind the three the
	// first step left queued, which it skips), claims and is answered.
	pollQueue(t, q, host, "e", time.Millisecond)
	if turn := mustClaimTurn(t, q, host, "e", time.Millisecond, paceDelay); turn.Wait != 0 {
		t.Fatalf("ClaimTurn of the owner = %+v; want it granted", turn)
	}
	mustUnclaim(t, q, host, "e")
	if s := step(); s >= s1 {
		t.Errorf("places a step apart after a quick answer: %v; want the shorter service time to count", s)
	}
}

// testQueueBrokenClaim: a claim expiring further ahead than any caller's
// (taken with a day, asked about with a second) cannot be right: Queue
// drops it, reports the repair, and the request's turn comes as if the
// host were not claimed.
func testQueueBrokenClaim(t *testing.T, b backend.Backend) {
	q := queuer(t, b)
	const host, delay = "broken-claim-queue.example", 10 * time.Millisecond
	mustClaimTurn(t, q, host, "ghost", delay, 24*time.Hour)
	time.Sleep(2 * delay)
	turn, err := q.Queue(ctx(t), host, "b", 0, delay, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !turn.Repaired || turn.Wait != 0 {
		t.Errorf("Queue past a claim expiring a day ahead = %+v; want it granted and repaired", turn)
	}
}

// testQueueOddCalls: a delay of 0 is granted at once; a ticket the backend
// never gave is replaced; a cancelled context fails both calls.
func testQueueOddCalls(t *testing.T, b backend.Backend) {
	q := queuer(t, b)
	mustQueue(t, q, "zero-queue.example", "a", 0, paceDelay)
	if w := mustQueue(t, q, "zero-queue.example", "z", 0, 0); w.Wait != 0 {
		t.Errorf("Queue with delay 0 waits %v; want 0", w.Wait)
	}
	if w := mustQueue(t, q, "unknown-ticket.example", "a", 1<<40, paceDelay); w.Ticket == 1<<40 || w.Wait != 0 {
		t.Errorf("Queue with a ticket never given = %+v; want a new ticket, granted on a fresh host", w)
	}
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := q.Queue(cancelled, "cancelled-queue.example", "a", 0, paceDelay, paceDelay); !errors.Is(err, context.Canceled) {
		t.Errorf("Queue = %v; want context.Canceled", err)
	}
	if _, err := q.ClaimTurn(cancelled, "cancelled-queue.example", "a", paceDelay, paceDelay); !errors.Is(err, context.Canceled) {
		t.Errorf("ClaimTurn = %v; want context.Canceled", err)
	}
	if w := mustQueue(t, q, "cancelled-queue.example", "b", 0, paceDelay); w.Wait != 0 {
		t.Errorf("the cancelled Queue recorded a start: the next waits %v", w.Wait)
	}
}

// queuePauser returns b as a Queuer that is a Pauser, or skips t.
func queuePauser(t *testing.T, b backend.Backend) (backend.Queuer, backend.Pauser) {
	t.Helper()
	q := queuer(t, b)
	return q, pauser(t, b)
}

// testQueuePaused: while the host is paused, neither Queue nor ClaimTurn
// lets a request go, both say so, and the queue is emptied.
func testQueuePaused(t *testing.T, b backend.Backend) {
	q, p := queuePauser(t, b)
	const host = "queue-paused.example"
	mustQueue(t, q, host, "a", 0, paceDelay)
	queued := mustQueue(t, q, host, "b", 0, paceDelay)
	mustPause(t, p, host, time.Hour, time.Second, 2*time.Hour)
	for _, turn := range []backend.Turn{mustQueue(t, q, host, "c", 0, paceDelay), mustQueue(t, q, host, "b", queued.Ticket, paceDelay)} {
		if turn.Ticket != 0 || turn.Wait < time.Hour-callSlack || turn.Pause.Phase != backend.PhasePaused || turn.Pause.Wait < time.Hour-callSlack {
			t.Errorf("Queue during an hour's pause = %+v; want no ticket, the pause's wait, paused", turn)
		}
	}
	if turn := mustClaimTurn(t, q, host, "a", paceDelay, paceDelay); turn.Wait < time.Hour-callSlack || turn.Pause.Phase != backend.PhasePaused {
		t.Errorf("ClaimTurn of the owner during an hour's pause = %+v; want refused, paused", turn)
	}
	if turn := mustQueue(t, q, "queue-unpaused.example", "a", 0, paceDelay); turn.Wait != 0 || turn.Pause.Phase != backend.PhaseHealthy {
		t.Errorf("Queue of another host = %+v; want granted, healthy", turn)
	}
}

// testQueueProbe: when a short pause ends, the first token to ask Queue is
// the probe and goes; the others wait, at the wire too; the probe claims
// the wire; once it is answered the host recovers and Queue says so. A
// queue from before the pause was emptied. ClaimTurn makes a probe too.
func testQueueProbe(t *testing.T, b backend.Backend) {
	q, p := queuePauser(t, b)
	const host, delay = "queue-probe.example", 10 * time.Millisecond
	mustQueue(t, q, host, "before", 0, delay)
	old := mustQueue(t, q, host, "old", 0, paceDelay) // will have been emptied
	mustPause(t, p, host, 0, 40*time.Millisecond, time.Minute)
	probe := pollQueue(t, q, host, "probe", delay)
	if probe.Pause.Phase != backend.PhaseProbing || !probe.Pause.Probe {
		t.Fatalf("the first Queue after the pause = %+v; want it the probe", probe)
	}
	other := mustQueue(t, q, host, "old", old.Ticket, delay)
	if other.Wait == 0 || other.Pause.Phase != backend.PhaseProbing || other.Pause.Probe {
		t.Errorf("another Queue during the probe = %+v; want a wait, probing, not the probe", other)
	}
	if fresh := mustQueue(t, q, host, "fresh", 0, delay); fresh.Wait == 0 || fresh.Ticket != 0 {
		t.Errorf("a new request during the probe = %+v; want a wait and no ticket", fresh)
	}
	if turn := mustClaimTurn(t, q, host, "old", delay, time.Minute); turn.Wait == 0 || turn.Pause.Phase != backend.PhaseProbing {
		t.Errorf("ClaimTurn of another token during the probe = %+v; want refused, probing", turn)
	}
	if a := mustAsk(t, p, host, "asker"); a.wait == 0 || a.probe {
		t.Errorf("Ask during Queue's probe = %+v; want a wait", a)
	}
	if turn := mustClaimTurn(t, q, host, "probe", delay, time.Minute); turn.Wait != 0 || !turn.Pause.Probe {
		t.Errorf("ClaimTurn of the probe = %+v; want granted, the probe", turn)
	}
	mustUnclaim(t, q, host, "probe")
	if healthy, err := p.Answered(ctx(t), host, "probe"); err != nil || healthy {
		t.Fatalf("Answered(probe) = %v, %v; want recovering", healthy, err)
	}
	if turn := mustQueue(t, q, host, "next", 0, delay); turn.Pause.Phase != backend.PhaseRecovering {
		t.Errorf("Queue after the probe's answer = %+v; want recovering", turn)
	}

	const other2 = "claim-probe.example"
	mustPause(t, p, other2, 0, 40*time.Millisecond, time.Minute)
	deadline := time.Now().Add(10 * time.Second)
	for {
		turn := mustClaimTurn(t, q, other2, "x", delay, time.Minute)
		if turn.Pause.Phase != backend.PhasePaused {
			if turn.Wait != 0 || !turn.Pause.Probe {
				t.Errorf("the first ClaimTurn after a pause = %+v; want it granted as the probe", turn)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("ClaimTurn: still paused after ten seconds")
		}
		time.Sleep(min(turn.Wait, 20*time.Millisecond))
	}
}

// pollQueue asks Queue for token, with its ticket, until it is granted, for
// at most ten seconds, and returns the grant.
func pollQueue(t *testing.T, q backend.Queuer, host, token string, delay time.Duration) backend.Turn {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	var ticket int64
	for {
		turn := mustQueue(t, q, host, token, ticket, delay)
		if turn.Wait == 0 {
			return turn
		}
		if time.Now().After(deadline) {
			t.Fatalf("Queue(%q, %q) still waits %v after ten seconds: %+v", host, token, turn.Wait, turn)
		}
		ticket = turn.Ticket
		time.Sleep(min(turn.Wait, 20*time.Millisecond))
	}
}

// watcher returns b as a PauseWatcher, or skips t.
func watcher(t *testing.T, b backend.Backend) backend.PauseWatcher {
	t.Helper()
	w, ok := b.(backend.PauseWatcher)
	if !ok {
		t.Skip("the backend is not a PauseWatcher")
	}
	return w
}

// readPauses calls PausesSince from cursor until nothing more is to be
// read, max hosts at a time, and returns the hosts and the last cursor.
func readPauses(t *testing.T, w backend.PauseWatcher, cursor string, max int) ([]string, string) {
	t.Helper()
	var hosts []string
	for range 1000 {
		page, next, more, err := w.PausesSince(ctx(t), cursor, max)
		if err != nil {
			t.Fatalf("PausesSince(%q): %v", cursor, err)
		}
		if len(page) > max {
			t.Errorf("PausesSince(%q, %d) returned %d hosts", cursor, max, len(page))
		}
		hosts, cursor = append(hosts, page...), next
		if !more {
			return hosts, cursor
		}
	}
	t.Fatalf("PausesSince still has more after 1000 calls")
	return nil, ""
}

// sortedSet returns hosts sorted, without repeats.
func sortedSet(hosts []string) []string {
	s := slices.Clone(hosts)
	slices.Sort(s)
	return slices.Compact(s)
}

// testPausesSince: a full read lists every host with a back-off state,
// page by page; from its cursor on, each read returns the pauses begun
// since, in order, and nothing when none began; a pause begun during a
// full read is seen; a cursor the backend cannot follow reads everything
// again.
func testPausesSince(t *testing.T, b backend.Backend) {
	w := watcher(t, b)
	if hosts, _ := readPauses(t, w, "", 10); len(hosts) != 0 {
		t.Fatalf("a full read with no pause = %v; want none", hosts)
	}
	_, cursor := readPauses(t, w, "", 10)
	for _, h := range []string{"a.example", "b.example"} {
		mustPause(t, w, h, time.Hour, time.Second, 2*time.Hour)
	}
	hosts, cursor := readPauses(t, w, cursor, 10)
	if !slices.Equal(hosts, []string{"a.example", "b.example"}) {
		t.Errorf("the pauses since the cursor = %v; want a and b in order", hosts)
	}
	if hosts, _ := readPauses(t, w, cursor, 10); len(hosts) != 0 {
		t.Errorf("a second read from the latest cursor = %v; want none", hosts)
	}

	// A full read, a host a page, while another host is paused.
	page, next, more, err := w.PausesSince(ctx(t), "", 1)
	for err == nil && more && len(page) == 0 {
		page, next, more, err = w.PausesSince(ctx(t), next, 1)
	}
	if err != nil || len(page) != 1 {
		t.Fatalf("the first page of a full read = %v, %v, %v", page, more, err)
	}
	mustPause(t, w, "c.example", time.Hour, time.Second, 2*time.Hour)
	rest, _ := readPauses(t, w, next, 1)
	if got := sortedSet(append(page, rest...)); !slices.Equal(got, []string{"a.example", "b.example", "c.example"}) {
		t.Errorf("a full read during a new pause = %v; want a, b and c", got)
	}

	// Many new pauses, read two at a time.
	_, cursor = readPauses(t, w, cursor, 10)
	for _, h := range []string{"d.example", "e.example", "f.example"} {
		mustPause(t, w, h, time.Hour, time.Second, 2*time.Hour)
	}
	if hosts, _ := readPauses(t, w, cursor, 2); !slices.Equal(hosts, []string{"d.example", "e.example", "f.example"}) {
		t.Errorf("the new pauses two at a time = %v; want d, e, f", hosts)
	}
	if hosts, _ := readPauses(t, w, "not a cursor", 10); len(sortedSet(hosts)) != 6 {
		t.Errorf("a read from a cursor the backend never gave = %v; want all six hosts", hosts)
	}
}
