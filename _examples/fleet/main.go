// Command fleet crawls one demo site with three worker processes that
// share robots.txt and the site's Crawl-delay through Redis
// (robotsext.WithBackend with redisbackend). It shows one robots.txt
// fetch for the whole fleet, the site's Crawl-delay kept between the
// requests of all workers together, and a disallowed page blocked in
// every worker.
//
// Offline and self-contained: by default it starts miniredis, an
// in-process server speaking the Redis protocol, on loopback, and the
// demo site on loopback; the workers are this program started again.
// With -redis ADDR the workers share a real Redis instead.
//
//	cd _examples/fleet && go run .
//	go run . -redis localhost:6379
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/alicebob/miniredis/v2"
)

func main() {
	redisAddr := flag.String("redis", "", "address of a Redis to share (default: an in-process miniredis on loopback)")
	workers := flag.Int("workers", 3, "worker processes")
	pages := flag.Int("pages", 4, "pages each worker fetches")
	workerID := flag.String("worker", "", "run as worker `ID` (used by the fleet itself)")
	siteURL := flag.String("site", "", "the site a worker crawls (used by the fleet itself)")
	flag.Parse()
	log.SetFlags(0)

	if *workerID != "" {
		if err := runWorker(*workerID, *redisAddr, *siteURL, *pages); err != nil {
			log.Fatalf("worker %s: %v", *workerID, err)
		}
		return
	}

	addr, what := *redisAddr, "Redis at "+*redisAddr
	if addr == "" {
		m := miniredis.NewMiniRedis()
		if err := m.StartAddr("127.0.0.1:0"); err != nil {
			log.Fatal(err)
		}
		defer m.Close()
		m.ClockTTL(true) // keys expire with the wall clock, as in Redis
		addr, what = m.Addr(), "miniredis at "+m.Addr()
	}
	s := startSite()
	defer s.Close()
	fmt.Printf("site %s (Crawl-delay %v), %s, %d worker processes\n\n", s.URL, crawlDelay, what, *workers)
	fmt.Println("Each worker lists what it fetched, then how many robots.txt requests it made")
	fmt.Println("itself and the fleet size it last saw: the workers it counted through their")
	fmt.Println("heartbeats in Redis. Were Redis to fail, a worker would pace the site at the")
	fmt.Println("Crawl-delay times that number, so that the fleet together stays within the")
	fmt.Println("delay. A worker that counted before the others had sent a heartbeat saw fewer.")
	fmt.Println()

	outputs := launch(*workers, addr, s.URL, *pages)
	for i, out := range outputs {
		fmt.Printf("worker %d:\n", i+1)
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			fmt.Printf("  %s\n", sc.Text())
		}
	}
	fmt.Println()
	s.report(os.Stdout)
}

// launch starts n workers of this program and returns what each printed.
func launch(n int, redisAddr, site string, pages int) [][]byte {
	self, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	outputs := make([][]byte, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			cmd := exec.Command(self, "-worker", fmt.Sprint(i+1), "-redis", redisAddr, "-site", site, "-pages", fmt.Sprint(pages))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				log.Fatalf("worker %d: %v\n%s", i+1, err, stderr.String())
			}
			outputs[i] = out
		})
	}
	wg.Wait()
	return outputs
}

// formatGaps lists gaps truncated to the millisecond.
func formatGaps(gaps []time.Duration) string {
	var b strings.Builder
	for i, g := range gaps {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(g.Truncate(time.Millisecond).String())
	}
	return b.String()
}
