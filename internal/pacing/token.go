package pacing

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"sync/atomic"
)

// tokenSource names this process's requests in a Backend: a random prefix,
// then a sequence number, so that no two requests of a fleet share a
// name. The zero value needs its prefix set (newTokenPrefix); it is safe
// for concurrent use after.
type tokenSource struct {
	prefix string        // set before first use, read-only after
	seq    atomic.Uint64 // numbers the tokens
}

// next returns a token no other request of the fleet uses.
func (t *tokenSource) next() string {
	return t.prefix + strconv.FormatUint(t.seq.Add(1), 36)
}

// newTokenPrefix returns 8 random bytes in hex and a dash.
func newTokenPrefix() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:]) + "-"
}
