package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/robotsext/robotsext/backend"
)

// roundTripRobots has rules for AcmeBot and the others, and a delay.
const roundTripRobots = "# round trip\nUser-agent: AcmeBot\nDisallow: /private/\nAllow: /private/open\nDisallow: /*.pdf$\nCrawl-delay: 2\n\nUser-agent: *\nDisallow: /\n"

// roundTripPaths are the paths whose decisions must survive a round trip.
func roundTripPaths() []string {
	return []string{"/", "/private/x", "/private/open/y", "/doc.pdf", "/doc.pdf?x", "/public"}
}

// decisions is what en decides for AcmeBot on each path: the outcome in
// force, whether the copy is stale, and the rule that decides.
func decisions(en *Entry) []string {
	var ds []string
	for _, p := range roundTripPaths() {
		d := fmt.Sprintf("%v stale=%v", en.Outcome, en.Stale)
		if en.Outcome == backend.OutcomeOK {
			m := en.Policy.Decide(en.Policy.Select("AcmeBot"), p)
			d += fmt.Sprintf(" allowed=%v line=%d rule=%q", m.Allowed(), m.Line(), en.Policy.Written(m))
		}
		ds = append(ds, d)
	}
	return ds
}

// TestNextRecordEntryOf builds records with nextRecord from answers as the
// Fetcher makes them, stores each under a lease and loads it back from a
// backend.Memory, and checks that entryOf of the loaded record decides
// every path as entryOf of the stored one (with the live Robots) and as
// newEntry, the local cache's rule, does: outcome, stale copy, expiry,
// failures, the deciding rule, and the error an unreachable answer
// carries.
func TestNextRecordEntryOf(t *testing.T) {
	t.Parallel()
	errs := testErrors()
	o := Origin{HTTPS: true, Host: "rt.example"}
	key := o.String()
	mb := backend.NewMemory()
	body := []byte(roundTripRobots)
	t0 := time.Now()
	good := &Robots{URL: o.RobotsURL(), Status: 200, Outcome: backend.OutcomeOK, Policy: parse(body), Size: len(body),
		FetchedAt: t0, Expires: t0.Add(time.Hour), ETag: `"v1"`}
	t1 := t0.Add(2 * time.Hour)
	notModified := &Robots{URL: o.RobotsURL(), Status: 304, Outcome: backend.OutcomeOK, Policy: good.Policy, NotModified: true, Size: len(body),
		FetchedAt: t1, Expires: t1.Add(time.Hour), ETag: `"v1"`}
	t2 := t1.Add(2 * time.Hour)
	unreachable := &Robots{URL: o.RobotsURL(), Status: 503, Outcome: backend.OutcomeUnreachable, Err: errs.Status(o.RobotsURL(), 503),
		FetchedAt: t2, Expires: t2.Add(time.Minute)}
	t3 := t2.Add(time.Hour)
	unavailable := &Robots{URL: o.RobotsURL(), Status: 404, Outcome: backend.OutcomeUnavailable, FetchedAt: t3, Expires: t3.Add(time.Hour)}
	t4 := t3.Add(2 * time.Hour)
	unreachableAgain := &Robots{URL: o.RobotsURL(), Status: 0, Outcome: backend.OutcomeUnreachable,
		Err: fmt.Errorf("%w: dial tcp: connection refused", errUnreachable), FetchedAt: t4, Expires: t4.Add(time.Minute)}

	var prevRec *backend.Record
	var prevEntry *Entry
	for _, step := range []struct {
		name  string
		r     *Robots
		body  []byte
		stale bool
	}{
		{"ok", good, body, false},
		{"304", notModified, nil, false},
		{"unreachable with a stale good copy", unreachable, nil, true},
		{"unavailable", unavailable, nil, false},
		{"unreachable without a good copy", unreachableAgain, nil, false},
	} {
		rec := nextRecord(prevRec, step.r, step.body)
		lease, ok, _, err := mb.Lease(context.Background(), key, time.Minute)
		if err != nil || !ok {
			t.Fatalf("%s: Lease %v %v", step.name, ok, err)
		}
		if err := mb.Store(context.Background(), key, lease, rec); err != nil {
			t.Fatalf("%s: Store: %v", step.name, err)
		}
		loaded, err := mb.Load(context.Background(), key)
		if err != nil || loaded == nil {
			t.Fatalf("%s: Load: %v %v", step.name, loaded, err)
		}
		stored := entryOf(o, rec, step.r, &errs)  // the fetcher's entry
		adopted := entryOf(o, loaded, nil, &errs) // another Cache's
		local := newEntry(o, prevEntry, step.r)   // without a backend
		for _, en := range []*Entry{stored, local} {
			if adopted.Outcome != en.Outcome || adopted.Stale != en.Stale || !adopted.Expires.Equal(en.Expires) ||
				adopted.Failures != en.Failures || !adopted.GoodAt.Equal(en.GoodAt) {
				t.Errorf("%s: entries differ: adopted %v/%v/%v/%d, other %v/%v/%v/%d", step.name,
					adopted.Outcome, adopted.Stale, adopted.Expires, adopted.Failures, en.Outcome, en.Stale, en.Expires, en.Failures)
			}
			if a, b := fmt.Sprint(decisions(adopted)), fmt.Sprint(decisions(en)); a != b {
				t.Errorf("%s: adopted decides %s, other %s", step.name, a, b)
			}
		}
		if adopted.Stale != step.stale {
			t.Errorf("%s: stale %v, want %v", step.name, adopted.Stale, step.stale)
		}
		if step.r.Outcome == backend.OutcomeUnreachable {
			if err := adopted.Robots.Err; err == nil || !errors.Is(err, errUnreachable) || err.Error() != step.r.Err.Error() {
				t.Errorf("%s: adopted Err %v; want the fetch's error text, errors.Is Unreachable", step.name, err)
			}
			var se *statusError
			if errors.As(adopted.Robots.Err, &se) != (step.r.Status == 503) {
				t.Errorf("%s: adopted Err %#v; want a status error exactly for the 503", step.name, adopted.Robots.Err)
			}
		}
		if step.name == "304" && (!loaded.Latest.NotModified || string(loaded.Latest.Body) != roundTripRobots) {
			t.Errorf("304: record NotModified %v with body %q, want the confirmed copy's body", loaded.Latest.NotModified, loaded.Latest.Body)
		}
		prevRec, prevEntry = loaded, local
	}
}

// TestNewEntryStaleWindow proves the stale-copy rule: a good copy keeps
// deciding while its origin is unreachable, with the failures counted,
// until backend.MaxStale after it was last confirmed; the entry then
// expires no later than that, and after it the unreachable answer decides.
func TestNewEntryStaleWindow(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	good := &Robots{Outcome: backend.OutcomeOK, Policy: parse([]byte(testRules)), FetchedAt: t0, Expires: t0.Add(time.Hour)}
	en := newEntry(testHost, nil, good)
	down := func(at time.Time, retry time.Duration) *Robots {
		return &Robots{Outcome: backend.OutcomeUnreachable, Err: errUnreachable, FetchedAt: at, Expires: at.Add(retry)}
	}
	en = newEntry(testHost, en, down(t0.Add(2*time.Hour), time.Minute))
	if !en.Stale || en.Outcome != backend.OutcomeOK || en.Policy != good.Policy || en.Failures != 1 || !en.GoodAt.Equal(t0) {
		t.Fatalf("first failure: %+v", en)
	}
	if en.Size <= entryOverhead {
		t.Errorf("a stale entry's size %d leaves its policy out", en.Size)
	}
	near := t0.Add(backend.MaxStale - 30*time.Minute)
	en = newEntry(testHost, en, down(near, time.Hour))
	if !en.Stale || en.Failures != 2 || !en.Expires.Equal(t0.Add(backend.MaxStale)) {
		t.Errorf("near the end of the window: stale %v failures %d expires %v; want the window's end", en.Stale, en.Failures, en.Expires)
	}
	en = newEntry(testHost, en, down(t0.Add(backend.MaxStale+time.Minute), time.Hour))
	if en.Stale || en.Outcome != backend.OutcomeUnreachable || en.Policy != nil || en.Failures != 3 {
		t.Errorf("past the window: %+v; want the unreachable answer deciding", en)
	}
	if en.Size != entryOverhead {
		t.Errorf("an entry without a policy or URLs: size %d, want %d", en.Size, entryOverhead)
	}
}
