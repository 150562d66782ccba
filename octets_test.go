package robotsext

import (
	"strings"
	"testing"
)

// The host classes are what their doc comments list.
func TestHostOctets(t *testing.T) {
	t.Parallel()
	for c := range 256 {
		b := byte(c)
		if got, want := hostOctets[b]&octFold != 0, strings.ToLower(string([]byte{b})) != string([]byte{b}) || b >= 0x80; got != want {
			t.Errorf("hostOctets[%q] folds: %v", b, got)
		}
		if got, want := hostOctets[b]&octBadHost != 0, strings.IndexByte(` /\?#@`, b) >= 0; got != want {
			t.Errorf("hostOctets[%q] is no host's: %v", b, got)
		}
		if got, want := hostOctets[b]&octColon != 0, b == ':'; got != want {
			t.Errorf("hostOctets[%q] starts a port: %v", b, got)
		}
	}
}
