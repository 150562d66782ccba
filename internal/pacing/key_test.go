package pacing

import "testing"

// TestHostKey: "host." and "host" are one server, so their requests
// share one pace; case does not matter, the port does.
func TestHostKey(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"site.test.", "site.test"},
		{"Site.Test.:8080", "site.test:8080"},
		{"site.test", "site.test"},
		{"[::1]:80", "[::1]:80"},
		{"[::1]", "[::1]"},
		{".", "."},
		{"a..", "a."},
	}
	for _, tt := range tests {
		if got := HostKey(tt.in); got != tt.want {
			t.Errorf("HostKey(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
