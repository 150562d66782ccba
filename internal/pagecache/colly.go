package pagecache

// This file reads Colly's own cache (CacheDir) the way Colly does, so that
// a page it will serve from there is known before the pace is waited for.

import (
	"crypto/sha1"
	"encoding/hex"
	"net/http"
	"os"
	"path"
	"time"
)

// InCollyCache reports whether Colly v2's backend will answer a request
// from its CacheDir dir (http_backend.go's Cache: a GET without
// "Cache-Control: no-cache" whose file, named by the SHA-1 of the URL
// under a directory of its first two hex digits, exists and is not older
// than expiration when expiration > 0).
func InCollyCache(dir string, expiration time.Duration, method, rawURL, cacheControl string) bool {
	if dir == "" || method != http.MethodGet || cacheControl == "no-cache" {
		return false
	}
	sum := sha1.Sum([]byte(rawURL))
	name := hex.EncodeToString(sum[:])
	fi, err := os.Stat(path.Join(dir, name[:2], name))
	return err == nil && (expiration <= 0 || time.Since(fi.ModTime()) <= expiration)
}
