package pagecache

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestDiskGetSetDelete(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, err := NewDisk(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if d.limit != DefaultDiskLimit {
		t.Errorf("limit = %d, want the default", d.limit)
	}
	if _, ok, err := d.Get(ctx, "k"); ok || err != nil {
		t.Fatalf("empty store: ok %v err %v", ok, err)
	}
	for _, v := range []string{"one", "two, longer"} {
		if err := d.Set(ctx, "k", []byte(v)); err != nil {
			t.Fatal(err)
		}
		if got, ok, _ := d.Get(ctx, "k"); !ok || string(got) != v {
			t.Fatalf("Get = %q %v, want %q", got, ok, v)
		}
	}
	if err := d.Delete(ctx, "k"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := d.Get(ctx, "k"); ok {
		t.Fatal("deleted entry still there")
	}
	if err := d.Delete(ctx, "k"); err != nil {
		t.Fatalf("deleting a missing key: %v", err)
	}
	if _, err := NewDisk("", 0); err == nil {
		t.Error("NewDisk(\"\") did not fail")
	}
}

// TestDiskEvictsLeastRecentlyUsed fills a store past its bound: the
// directory ends at or under the bound, and the entry read last survives.
func TestDiskEvictsLeastRecentlyUsed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	d, err := NewDisk(dir, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	val := bytes.Repeat([]byte("x"), 1000)
	base := time.Now().Add(-time.Hour)
	for i := range 9 {
		key := fmt.Sprint("k", i)
		if err := d.Set(ctx, key, val); err != nil {
			t.Fatal(err)
		}
		at := base.Add(time.Duration(i) * time.Minute) // ages in write order, on a clock of our own
		_ = os.Chtimes(d.path(key), at, at)
	}
	if _, ok, _ := d.Get(ctx, "k0"); !ok { // k0 is now the most recently used
		t.Fatal("k0 missing")
	}
	for i := 9; i < 12; i++ {
		if err := d.Set(ctx, fmt.Sprint("k", i), val); err != nil {
			t.Fatal(err)
		}
	}
	if size := dirSize(t, dir); size > 10_000 {
		t.Errorf("directory holds %d bytes, over its bound of 10000", size)
	}
	if _, ok, _ := d.Get(ctx, "k0"); !ok {
		t.Error("the most recently used entry was evicted")
	}
	if _, ok, _ := d.Get(ctx, "k1"); ok {
		t.Error("the least recently used entry survived")
	}
	// Eviction removes the subdirectories it empties (before: 810 KB of
	// empty directories for 278 KB of entries); a later Set makes them
	// again.
	subs, _ := os.ReadDir(dir)
	for _, sub := range subs {
		if files, _ := os.ReadDir(filepath.Join(dir, sub.Name())); len(files) == 0 {
			t.Errorf("eviction left the empty subdirectory %s", sub.Name())
		}
	}
	if err := d.Set(ctx, "k1", val); err != nil {
		t.Errorf("Set after eviction: %v", err)
	}
}

// TestDiskRemovesOldTempFiles: a temporary file left by a crash is
// removed once old, never read as an entry.
func TestDiskRemovesOldTempFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	d, _ := NewDisk(dir, 0)
	sub := filepath.Join(dir, "ab")
	_ = os.MkdirAll(sub, 0o750)
	left := filepath.Join(sub, tmpPrefix+"crash")
	_ = os.WriteFile(left, []byte("torn"), 0o600)
	old := time.Now().Add(-2 * tmpMaxAge)
	_ = os.Chtimes(left, old, old)
	if err := d.Set(context.Background(), "k", []byte("v")); err != nil { // the first write reckons the directory
		t.Fatal(err)
	}
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Errorf("old temporary file still there: %v", err)
	}
}

// TestDiskConcurrent: collectors (goroutines) and processes (two Disk
// values on one directory) writing and reading the same keys only ever
// read a whole value.
func TestDiskConcurrent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	a, _ := NewDisk(dir, 0)
	b, _ := NewDisk(dir, 0)
	vals := []string{strings.Repeat("a", 5000), strings.Repeat("b", 7000)}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := a
			if g%2 == 1 {
				s = b
			}
			for i := range 50 {
				key := fmt.Sprint("k", i%5)
				if err := s.Set(ctx, key, []byte(vals[(g+i)%2])); err != nil {
					t.Error(err)
					return
				}
				got, ok, err := s.Get(ctx, key)
				if err != nil || !ok || (string(got) != vals[0] && string(got) != vals[1]) {
					t.Errorf("read a torn or missing value (%d bytes, ok %v, err %v)", len(got), ok, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func dirSize(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	_ = filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	return n
}
