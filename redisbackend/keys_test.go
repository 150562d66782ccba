package redisbackend

import (
	"strings"
	"testing"
)

// hashTag returns what Redis Cluster hashes for key: the text between the
// first '{' and the next '}' when not empty, else the whole key.
func hashTag(key string) string {
	i := strings.IndexByte(key, '{')
	if i < 0 {
		return key
	}
	j := strings.IndexByte(key[i+1:], '}')
	if j <= 0 {
		return key
	}
	return key[i+1 : i+1+j]
}

// TestKeyLayout: the documented layout, with the host as hash tag.
func TestKeyLayout(t *testing.T) {
	t.Parallel()
	k := keys{prefix: DefaultPrefix}
	tests := []struct{ got, want string }{
		{k.record("https://example.com"), "robotsext:{example.com}:rec:https://example.com"},
		{k.lease("https://example.com"), "robotsext:{example.com}:lease:https://example.com"},
		{k.pace("example.com"), "robotsext:{example.com}:pace"},
		{k.record("http://[::1]:8080"), "robotsext:{[::1]:8080}:rec:http://[::1]:8080"},
		{k.pace("example.com:8443"), "robotsext:{example.com:8443}:pace"},
		{k.fleet(), "robotsext:fleet"},
		{keys{prefix: "crawl7:"}.pace("a.example"), "crawl7:{a.example}:pace"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("key %q; want %q", tc.got, tc.want)
		}
	}
}

// TestKeySlots: an origin's lease and record (which one script touches)
// and its host's pace share one hash tag, also for hosts with braces,
// and distinct hosts keep distinct tags.
func TestKeySlots(t *testing.T) {
	t.Parallel()
	k := keys{prefix: DefaultPrefix}
	tests := []struct{ origin, host string }{
		{"https://example.com", "example.com"},
		{"http://[fe80::1%25eth0]:8080", "[fe80::1%25eth0]:8080"},
		{"https://curly{brace}.example", "curly{brace}.example"},
		{"https://}.example", "}.example"},
		{"https://", ""},
	}
	seen := map[string]string{}
	for _, tc := range tests {
		rec, lease, pace := hashTag(k.record(tc.origin)), hashTag(k.lease(tc.origin)), hashTag(k.pace(tc.host))
		if rec != lease || rec != pace {
			t.Errorf("%s: hash tags %q, %q, %q; want one", tc.origin, rec, lease, pace)
		}
		if other, dup := seen[rec]; dup {
			t.Errorf("%s and %s share the hash tag %q", tc.origin, other, rec)
		}
		seen[rec] = tc.origin
	}
	if a, b := k.pace("a%7Bb"), k.pace("a{b"); a == b {
		t.Errorf("hosts a%%7Bb and a{b share the key %q", a)
	}
}
