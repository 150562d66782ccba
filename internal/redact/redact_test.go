package redact

import (
	"strings"
	"testing"
)

// TestRawURL: userinfo goes, whatever else the URL holds; an @ in
// the path, query or fragment is left alone.
func TestRawURL(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"http://user:secret@host/p", "http://xxxxx@host/p"},
		{"http://token@host/p", "http://xxxxx@host/p"},
		{"https://a:b@c@host:8080/p?q=@x#@y", "https://xxxxx@host:8080/p?q=@x#@y"},
		{"http:\\\\user:secret@host\\p", "http:\\\\xxxxx@host\\p"},
		{"http://a\\b:secret@host/p", "http://xxxxx@host/p"},
		{"http:user:secret@host/p", "http:xxxxx@host/p"},
		{"ht tp://user:secret@h/", "ht tp://xxxxx@h/"},
		{"http://host/p?mail=a@b", "http://host/p?mail=a@b"},
		{"http://host/p", "http://host/p"},
		{"/relative@path", "/relative@path"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := RawURL(tt.in); got != tt.want {
			t.Errorf("RawURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestCredentials: the user and password of a Redis address leave a
// message in every spelling it may quote them in; "default" and the rest
// of the message stay.
func TestCredentials(t *testing.T) {
	t.Parallel()
	tests := []struct{ msg, addr, want string }{
		{"cannot reach redis://:pa%40ss@h:6379/0: WRONGPASS", "redis://:pa%40ss@h:6379/0", "cannot reach redis://xxxxx@h:6379/0: WRONGPASS"},
		{"auth pa@ss failed", "redis://:pa%40ss@h:6379/0", "auth xxxxx failed"},
		{"user svc:pw refused", "redis://svc:pw@h/1", "user xxxxx refused"},
		{"default user", "redis://default:pw@h/1", "default user"},
		{"no credentials here", "redis://h:6379/0", "no credentials here"},
		{"not a URL h:6379", "h:6379", "not a URL h:6379"},
	}
	for _, tt := range tests {
		got := Credentials(tt.msg, tt.addr)
		if got != tt.want {
			t.Errorf("Credentials(%q, %q) = %q, want %q", tt.msg, tt.addr, got, tt.want)
		}
		if strings.Contains(got, "pw") && !strings.Contains(tt.want, "pw") {
			t.Errorf("Credentials(%q, %q) kept the password: %q", tt.msg, tt.addr, got)
		}
	}
}
