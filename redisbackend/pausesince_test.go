package redisbackend

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// pauseHosts begins a pause of a minute on n hosts through b, 16 at a
// time, and returns the hosts.
func pauseHosts(t testing.TB, b *Backend, n int) []string {
	t.Helper()
	hosts := make([]string, n)
	for i := range hosts {
		hosts[i] = fmt.Sprintf("h%05d.example", i)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := range 16 {
		wg.Go(func() {
			for i := w; i < n; i += 16 {
				if _, _, _, _, err := b.Pause(t.Context(), hosts[i], time.Minute, time.Second, time.Hour); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return hosts
}

// commandsRun returns how many commands the server ran (the scripts'
// own included) since its stats were reset, but INFO and CONFIG (the
// test's, and the eviction check each Backend makes in the background
// after its first call) and a new connection's set-up (HELLO, CLIENT).
func commandsRun(t testing.TB, s serverStats) int {
	t.Helper()
	n := 0
	for name, c := range s.cmds {
		if name != "info" && name != "hello" && !strings.HasPrefix(name, "config") && !strings.HasPrefix(name, "client") {
			n += int(c[0])
		}
	}
	return n
}

// TestPausesSinceAtScale: the background read of the fleet's pauses sees
// every paused host and costs the same however many are paused. A worker
// that starts while 10 or 10,000 hosts are paused learns every one of
// them, a page of 1,000 per call (one call for 10, ten for 10,000). Then
// each read from its cursor returns the pauses begun since (one new host,
// or none) and runs the same commands on the server at 10 and at 10,000
// paused hosts: the script, its TYPE and one XRANGE of the log after the
// cursor, not a scan of the index. (What the read costs in server time
// is BenchmarkPausesSince's.)
func TestPausesSinceAtScale(t *testing.T) {
	t.Parallel()
	commands := map[int][2]int{} // paused → the commands of a read with one new pause, with none
	var mu sync.Mutex
	t.Run("paused", func(t *testing.T) {
		for _, paused := range []int{10, 10_000} {
			t.Run(fmt.Sprint(paused), func(t *testing.T) {
				t.Parallel()
				s := startRedisServer(t)
				c := newClient(t, "unix", s.Sock)
				pauseHosts(t, New(c, WithHeartbeat(-1)), paused)

				w := New(newClient(t, "unix", s.Sock), WithHeartbeat(-1)) // a worker that starts now
				seen := map[string]bool{}
				cursor, calls := "", 0
				for more := true; more; {
					hosts, next, m, err := w.PausesSince(t.Context(), cursor, 1000)
					if err != nil {
						t.Fatal(err)
					}
					calls++
					for _, h := range hosts {
						seen[h] = true
					}
					cursor, more = next, m
					if calls > 2*paused/1000+2 {
						t.Fatalf("%d calls and still more", calls)
					}
				}
				if want := (paused + 999) / 1000; calls != want && calls != want+1 {
					t.Errorf("the full read took %d calls; want %d (a page of 1,000 each; one more when the last is full)", calls, want)
				}
				if len(seen) != paused {
					t.Errorf("the full read saw %d of the %d paused hosts", len(seen), paused)
				}

				read := func(want []string) int {
					t.Helper()
					if err := c.ConfigResetStat(t.Context()).Err(); err != nil {
						t.Fatal(err)
					}
					hosts, next, more, err := w.PausesSince(t.Context(), cursor, 1000)
					if err != nil || more || !slices.Equal(hosts, want) {
						t.Fatalf("PausesSince(cursor) = %q, more %v, %v; want %q", hosts, more, err, want)
					}
					cursor = next
					return commandsRun(t, readServerStats(t, c))
				}
				other := New(newClient(t, "unix", s.Sock), WithHeartbeat(-1))
				if _, _, _, _, err := other.Pause(t.Context(), "new.example", time.Minute, time.Second, time.Hour); err != nil {
					t.Fatal(err)
				}
				one := read([]string{"new.example"})
				none := read(nil)
				t.Logf("%d paused hosts: the full read took %d calls; a read with one new pause ran %d commands, with none %d", paused, calls, one, none)
				mu.Lock()
				commands[paused] = [2]int{one, none}
				mu.Unlock()
			})
		}
	})
	got := slices.Sorted(maps.Keys(commands))
	if len(got) == 2 && commands[10] != commands[10_000] {
		t.Errorf("commands of a read (one new pause, none): %v at 10 paused hosts, %v at 10,000; want the same", commands[10], commands[10_000])
	}
}

// BenchmarkPausesSince: a worker's background read of the pauses begun
// since its cursor (none here), at 10 and 10,000 paused hosts: the
// server's µs per read should not grow with the paused hosts.
func BenchmarkPausesSince(b *testing.B) {
	for _, paused := range []int{10, 10_000} {
		b.Run(fmt.Sprintf("paused=%d", paused), func(b *testing.B) {
			s := startRedisServer(b)
			c := newClient(b, "unix", s.Sock)
			pauseHosts(b, New(c, WithHeartbeat(-1)), paused)
			w := New(newClient(b, "unix", s.Sock), WithHeartbeat(-1))
			cursor := ""
			for more := true; more; {
				_, next, m, err := w.PausesSince(b.Context(), cursor, 1000)
				if err != nil {
					b.Fatal(err)
				}
				cursor, more = next, m
			}
			before := readServerStats(b, c)
			for b.Loop() {
				if _, _, _, err := w.PausesSince(b.Context(), cursor, 1000); err != nil {
					b.Fatal(err)
				}
			}
			after := readServerStats(b, c)
			usec := after.cmds["evalsha"][1] - before.cmds["evalsha"][1]
			b.ReportMetric(usec/float64(b.N), "server-µs/op")
		})
	}
}
