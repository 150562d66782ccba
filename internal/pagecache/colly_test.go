package pagecache

import (
	"crypto/sha1"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestInCollyCache(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	u := "https://a.example/p"
	sum := sha1.Sum([]byte(u))
	name := hex.EncodeToString(sum[:])
	_ = os.MkdirAll(filepath.Join(dir, name[:2]), 0o750)
	_ = os.WriteFile(filepath.Join(dir, name[:2], name), []byte("gob"), 0o600)
	old := time.Now().Add(-2 * time.Hour)
	for _, tt := range []struct {
		dir, method, url, cc string
		exp                  time.Duration
		want                 bool
	}{
		{dir, "GET", u, "", 0, true},
		{dir, "GET", u, "", 3 * time.Hour, true},
		{"", "GET", u, "", 0, false},
		{dir, "HEAD", u, "", 0, false},
		{dir, "GET", u, "no-cache", 0, false},
		{dir, "GET", u + "?x", "", 0, false},
	} {
		if got := InCollyCache(tt.dir, tt.exp, tt.method, tt.url, tt.cc); got != tt.want {
			t.Errorf("%+v: got %v", tt, got)
		}
	}
	_ = os.Chtimes(filepath.Join(dir, name[:2], name), old, old)
	if InCollyCache(dir, time.Hour, "GET", u, "") {
		t.Error("an expired file counted")
	}
}
