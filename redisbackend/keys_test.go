package redisbackend

import (
	"errors"
	"strings"
	"testing"
	"time"
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
		{k.queue("example.com"), "robotsext:{example.com}:queue"},
		{k.pause("example.com"), "robotsext:{example.com}:pause"},
		{k.pauses(), "robotsext:pauses"},
		{k.pauseLog(), "robotsext:pauselog"},
		{k.purges(), "robotsext:purges"},
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
		queue, pause := hashTag(k.queue(tc.host)), hashTag(k.pause(tc.host))
		if rec != lease || rec != pace || rec != queue || rec != pause {
			t.Errorf("%s: hash tags %q, %q, %q, %q, %q; want one", tc.origin, rec, lease, pace, queue, pause)
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

// TestPrefixWithBraces: a prefix holding a brace would be every key's hash
// tag, all of them in one Cluster slot: it is refused, as CheckPrefix
// says, New logs it, and every call fails with ErrBadPrefix without
// reaching Redis.
func TestPrefixWithBraces(t *testing.T) {
	t.Parallel()
	m := newMiniredis(t)
	for _, prefix := range []string{"crawl{1}:", "{crawl}", "crawl}:", "crawl{"} {
		if err := CheckPrefix(prefix); !errors.Is(err, ErrBadPrefix) {
			t.Errorf("CheckPrefix(%q) = %v; want ErrBadPrefix", prefix, err)
		}
		var logs logBuffer
		b := New(newClient(t, "tcp", m.Addr()), WithPrefix(prefix), WithLogger(logs.logger()), WithHeartbeat(-1))
		if !strings.Contains(logs.String(), "level=ERROR") || !strings.Contains(logs.String(), "brace") {
			t.Errorf("New with prefix %q logged %q; want an error about the brace", prefix, logs.String())
		}
		if _, err := b.Load(t.Context(), "https://example.com"); !errors.Is(err, ErrBadPrefix) {
			t.Errorf("Load with prefix %q = %v; want ErrBadPrefix", prefix, err)
		}
		if _, _, err := b.Start(t.Context(), "example.com", "a", time.Second); !errors.Is(err, ErrBadPrefix) {
			t.Errorf("Start with prefix %q = %v; want ErrBadPrefix", prefix, err)
		}
		if _, err := b.HasState(t.Context()); !errors.Is(err, ErrBadPrefix) {
			t.Errorf("HasState with prefix %q = %v; want ErrBadPrefix", prefix, err)
		}
		if st := b.Stats(); st.Calls != 0 {
			t.Errorf("prefix %q: %d calls reached Redis", prefix, st.Calls)
		}
	}
	if keys := m.Keys(); len(keys) != 0 {
		t.Errorf("keys written: %v", keys)
	}
	for _, prefix := range []string{"", "robotsext:", "crawl-2026-05:", "a:b:"} {
		if err := CheckPrefix(prefix); err != nil {
			t.Errorf("CheckPrefix(%q) = %v; want nil", prefix, err)
		}
	}
}
