package lifecycle

import (
	"context"
	"net"
	"net/http"
	"runtime"
	"sync"
	"testing"
)

// BenchmarkHangingFetchMemory measures what one slow fetch holds while
// its host hangs (docs/limits.md states the bound from it): the heap and
// stacks of 500 fetches accepted by a listener that never reads, per
// fetch, as B/hang (the Fetch goroutine, the transport's two connection
// goroutines and buffers, the request). The listener keeps the accepted
// connections without a goroutine, so the server side adds little.
func BenchmarkHangingFetchMemory(b *testing.B) {
	const n = 500
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, n)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	addr := ln.Addr().String()
	inUse := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapInuse + m.StackInuse
	}
	var perHang float64
	for b.Loop() {
		tr := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		}}
		cfg := fetcherConfig(&http.Client{Transport: tr}, newClock())
		cfg.Concurrency = n // every fetch in flight at once
		f := NewFetcher(cfg)
		ctx, cancel := context.WithCancel(context.Background())
		before := inUse()
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				f.Fetch(ctx, Origin{Host: "hang" + string(rune('a'+i%26)) + ".test"}, RequestHeader(nil), nil, 1)
			})
		}
		conns := make([]net.Conn, 0, n)
		for range n {
			conns = append(conns, <-accepted) // every request is out (its headers may still be in the buffers)
		}
		perHang = float64(int64(inUse())-int64(before)) / n
		cancel()
		wg.Wait()
		for _, c := range conns {
			c.Close()
		}
		tr.CloseIdleConnections()
	}
	b.ReportMetric(perHang, "B/hang")
}
