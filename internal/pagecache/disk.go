package pagecache

// This file is the store on disk: one file per entry, written atomically,
// the directory kept under a size bound by evicting the least recently
// used entries.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

const (
	// DefaultDiskLimit is a Disk store's size bound when none is given.
	DefaultDiskLimit = 1 << 30 // 1 GiB
	// tmpPrefix starts the name of a file being written.
	tmpPrefix = ".tmp-"
	// tmpMaxAge is how old a temporary file must be for eviction to
	// remove it (left by a process that crashed while writing).
	tmpMaxAge = time.Hour
	// rescanEvery is how many writes pass between two reckonings of the
	// directory's size, so that other processes' writes are counted.
	rescanEvery = 512
)

// Disk is a Store in a directory: each entry is a file named by the
// SHA-256 of its key, under a subdirectory of its first two hex digits.
// An entry is written to a temporary file in its subdirectory and renamed
// into place, so a reader (in this process or another) sees the old entry
// or the new one, never a torn one; a file damaged anyway (a crash before
// the data reached the disk) fails Decode's checksum and is a miss.
//
// The directory is kept at or under its limit: once the bytes written
// pass it, the least recently used entries (by modification time, which
// Get moves forward) are removed until the directory holds 90% of it, and
// the subdirectories they leave empty with them.
// Several processes may share one directory: each reckons its size anew
// every 512 writes and when its own count passes the limit.
type Disk struct {
	dir   string
	limit int64

	mu     sync.Mutex
	size   int64 // guarded by mu: bytes in the directory, as last reckoned plus this process's writes since
	sized  bool  // guarded by mu: size was reckoned once
	writes int   // guarded by mu: writes since the last reckoning
}

// NewDisk returns a Disk store in dir, creating it, bounded to limit bytes
// (DefaultDiskLimit when limit ≤ 0).
func NewDisk(dir string, limit int64) (*Disk, error) {
	if dir == "" {
		return nil, errors.New("pagecache: no directory given")
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = DefaultDiskLimit
	}
	return &Disk{dir: dir, limit: limit}, nil
}

// path returns the file of key.
func (d *Disk) path(key string) string {
	sum := sha256.Sum256([]byte(key))
	name := hex.EncodeToString(sum[:])
	return filepath.Join(d.dir, name[:2], name)
}

// Get reads the entry of key and marks it used.
func (d *Disk) Get(_ context.Context, key string) ([]byte, bool, error) {
	p := d.path(key)
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	now := time.Now()
	_ = os.Chtimes(p, now, now) // least recently used order; a failure only ages the entry
	return b, true, nil
}

// Set writes the entry of key atomically, then evicts if the directory
// passed its limit.
func (d *Disk) Set(_ context.Context, key string, entry []byte) error {
	p := d.path(key)
	sub := filepath.Dir(p)
	f, err := os.CreateTemp(sub, tmpPrefix+"*")
	if errors.Is(err, fs.ErrNotExist) { // a new subdirectory, or one eviction removed as empty
		if err = os.MkdirAll(sub, 0o750); err == nil {
			f, err = os.CreateTemp(sub, tmpPrefix+"*")
		}
	}
	if err != nil {
		return err
	}
	_, werr := f.Write(entry)
	cerr := f.Close()
	if werr != nil || cerr != nil {
		_ = os.Remove(f.Name())
		return errors.Join(werr, cerr)
	}
	var old int64
	if fi, err := os.Stat(p); err == nil {
		old = fi.Size()
	}
	if err := os.Rename(f.Name(), p); err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	d.wrote(int64(len(entry)) - old)
	return nil
}

// Delete removes the entry of key; a missing one is not an error.
func (d *Disk) Delete(_ context.Context, key string) error {
	p := d.path(key)
	fi, err := os.Stat(p)
	if err != nil {
		return nil
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	d.wrote(-fi.Size())
	return nil
}

// wrote counts delta bytes written and evicts when the directory is over
// its limit. Eviction runs on the writer's goroutine, under mu, so only
// one runs per process at a time.
func (d *Disk) wrote(delta int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.size += delta
	d.writes++
	if !d.sized || d.writes >= rescanEvery || d.size > d.limit {
		d.reckon()
	}
}

// reckon walks the directory, removes stale temporary files, and, over the
// limit, the least recently used entries down to 90% of it. Caller holds
// mu.
func (d *Disk) reckon() {
	type file struct {
		path string
		size int64
		mod  time.Time
	}
	var files []file
	var total int64
	now := time.Now()
	_ = filepath.WalkDir(d.dir, func(p string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() {
			return nil // an unreadable subdirectory is skipped; a vanished file too
		}
		fi, err := de.Info()
		if err != nil {
			return nil
		}
		if strings.HasPrefix(de.Name(), tmpPrefix) {
			if now.Sub(fi.ModTime()) > tmpMaxAge {
				_ = os.Remove(p)
			}
			return nil
		}
		files = append(files, file{p, fi.Size(), fi.ModTime()})
		total += fi.Size()
		return nil
	})
	if total > d.limit {
		slices.SortFunc(files, func(a, b file) int { return a.mod.Compare(b.mod) })
		target := d.limit / 10 * 9
		for _, f := range files {
			if total <= target {
				break
			}
			if err := os.Remove(f.path); err == nil || errors.Is(err, fs.ErrNotExist) {
				total -= f.size
				_ = os.Remove(filepath.Dir(f.path)) // only once it is empty
			}
		}
	}
	d.size, d.sized, d.writes = total, true, 0
}
