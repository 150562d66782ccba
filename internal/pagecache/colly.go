package pagecache

// This file reads Colly's own cache (CacheDir) the way Colly does, so that
// a page it will serve from there is known before the pace is waited for.

import (
	"crypto/sha1"
	"encoding/hex"
	"net/http"
	"os"
	"path"
	"reflect"
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

// Fronts reports whether collector (a *colly.Collector) sends through a
// Transport of c: its backend's http.Client's Transport, read by
// reflection, read only (Colly has no getter for it). known is false when
// that field cannot be found (another Colly layout); the caller then
// learns of a replaced transport from the responses, as before.
func (c *Cache) Fronts(collector any) (fronts, known bool) {
	v := reflect.ValueOf(collector)
	for _, f := range [...]string{"backend", "Client", "Transport"} {
		if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
			return false, false
		}
		if v = v.Elem().FieldByName(f); !v.IsValid() {
			return false, false
		}
	}
	if v.Kind() != reflect.Interface {
		return false, false
	}
	if v.IsNil() || v.Elem().Type() != reflect.TypeFor[*Transport]() || v.Elem().IsNil() {
		return false, true
	}
	return v.Elem().Elem().FieldByName("Cache").Pointer() == reflect.ValueOf(c).Pointer(), true
}
