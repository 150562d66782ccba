package lifecycle

import (
	"net/url"
	"strings"
	"testing"
)

// errNotHTTP is the error OriginOf is given for other schemes.
const errNotHTTP failure = "test: not http"

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

// TestOriginOf checks the origins of URLs, and the errors of URLs that
// have none.
func TestOriginOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want string // origin, or the error text
	}{
		{"http://a.test/x", "http://a.test"},
		{"HTTP://A.Test:80/x", "http://a.test"},
		{"https://a.test:443/", "https://a.test"},
		{"https://a.test:80/", "https://a.test:80"},
		{"http://a.test:8080", "http://a.test:8080"},
		{"http://a.test:/x", "http://a.test"},
		{"http://user:pw@a.test/", "http://a.test"},
		{"http://[::1]:8080/", "http://[::1]:8080"},
		{"http://[::1]/", "http://[::1]"},
		{"http://[::1]:80/", "http://[::1]"},
		{"ftp://a.test/", errNotHTTP.Error()},
		{"mailto:x@a.test", errNotHTTP.Error()},
		{"/relative", errNotHTTP.Error()},
		{"http:///path", errInvalidURL.Error()},
		{"http:opaque", errInvalidURL.Error()},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.in)
		if err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		o, err := OriginOf(u, errNotHTTP, errInvalidURL)
		got := o.String()
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("OriginOf(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// Hosts set by hand, which url.Parse would not have let through or
	// would have left in another form.
	for host, want := range map[string]string{
		"A.Test":      "http://a.test",
		"ÄB.test":     "http://äb.test",
		"a.test:":     "http://a.test",
		"a.test:x1":   errInvalidURL.Error(),
		"[]":          errInvalidURL.Error(),
		"[]:8080":     errInvalidURL.Error(),
		"[::1":        "http://[::1",
		":8080":       errInvalidURL.Error(),
		"a b.test":    errInvalidURL.Error(),
		"a.test/x":    errInvalidURL.Error(),
		"a.test?q":    errInvalidURL.Error(),
		"u@a.test":    errInvalidURL.Error(),
		`a\b.test`:    errInvalidURL.Error(),
		"a#b.test":    errInvalidURL.Error(),
		"A.TEST:8080": "http://a.test:8080",
	} {
		o, err := OriginOf(&url.URL{Scheme: "http", Host: host, Path: "/"}, errNotHTTP, errInvalidURL)
		got := o.String()
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("OriginOf(Host %q) = %q, want %q", host, got, want)
		}
	}
}
