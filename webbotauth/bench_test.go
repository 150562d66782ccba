package webbotauth

import (
	"crypto/ed25519"
	"net/http/httptest"
	"testing"
)

// BenchmarkSign measures the cost signing adds to a request: Sign on a
// page request (nonce, signature base, one Ed25519 signature, three
// fields), next to the bare Ed25519 signature of a base of the same size.
func BenchmarkSign(b *testing.B) {
	key := testKey(b)
	s, err := NewSigner(key, agent)
	if err != nil {
		b.Fatal(err)
	}
	req := httptest.NewRequest("GET", "https://shop.example/products/42?color=red", nil)
	req.Header.Set("User-Agent", "Mozilla/5.0 (compatible; FooBot/1.0; +https://example.com/bot)")
	b.Run("request", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := s.Sign(req); err != nil {
				b.Fatal(err)
			}
		}
	})
	base := make([]byte, 380) // the size of a page request's signature base
	b.Run("ed25519", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ed25519.Sign(key, base)
		}
	})
}
