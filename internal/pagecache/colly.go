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
	"unsafe"
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
	v, known := transportField(collector)
	if !known || v.IsNil() || v.Elem().Type() != reflect.TypeFor[*Transport]() || v.Elem().IsNil() {
		return false, known
	}
	return v.Elem().Elem().FieldByName("Cache").Pointer() == reflect.ValueOf(c).Pointer(), true
}

// CollectorTransport returns the transport collector (a *colly.Collector)
// sends through, read as Fronts reads it, for a Transport to wrap: nil
// when it has none of its own (http.DefaultTransport) or when the field
// cannot be found. A Transport of a Cache is unwrapped to its Next, so
// that a collector attached twice is not cached twice.
func CollectorTransport(collector any) http.RoundTripper {
	v, known := transportField(collector)
	if !known || v.IsNil() {
		return nil
	}
	// The field is unexported: its value is read through its address.
	rt, _ := reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem().Interface().(http.RoundTripper)
	if t, ok := rt.(*Transport); ok && t != nil {
		return t.Next
	}
	return rt
}

// transportField walks collector's backend.Client.Transport: an
// addressable interface value; known is false for another layout.
func transportField(collector any) (v reflect.Value, known bool) {
	v = reflect.ValueOf(collector)
	for _, f := range [...]string{"backend", "Client", "Transport"} {
		if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
			return v, false
		}
		if v = v.Elem().FieldByName(f); !v.IsValid() {
			return v, false
		}
	}
	return v, v.Kind() == reflect.Interface && v.CanAddr()
}
