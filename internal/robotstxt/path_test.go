package robotstxt

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// referencePathOf is PathOf written the plain way, with net/url's own
// EscapedPath and string concatenation, for the differential tests.
func referencePathOf(u *url.URL) string {
	var p string
	if u.Opaque != "" {
		p = u.Opaque
		if rest, ok := strings.CutPrefix(p, "//"); ok {
			if i := strings.IndexByte(rest, '/'); i >= 0 {
				p = rest[i:]
			} else {
				p = "/"
			}
		}
		if !strings.HasPrefix(p, "/") {
			p = "/" + p
		}
	} else if p = u.EscapedPath(); p == "" {
		p = "/"
	}
	if u.RawQuery != "" || u.ForceQuery {
		p += "?" + u.RawQuery
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if c := p[i]; c >= 0x80 {
			b.WriteString("%" + string(hexDigits[c>>4]) + string(hexDigits[c&15]))
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// pathURLs are URLs whose match paths take every branch of PathOf.
var pathURLs = []string{
	"http://a.test", "http://a.test/", "http://a.test/a/b?x=1&y=%20",
	"http://a.test/a%2Fb", "http://a.test/a%2fb", "http://a.test/a b",
	"http://a.test/caf%C3%A9", "http://a.test/café", "http://a.test/x?",
	"http://a.test//double", "http://a.test/p;params?q", "http://a.test/x#frag",
	"http:opaque/path?q=1", "http://a.test/?q=é", "http://a.test/(a)!*'[b]",
	"http://a.test/a%zz", "http://a.test/%41", "http://a.test/~u/$&+,:;=@",
	"http://a.test/" + strings.Repeat("é", 400), "http:%C3%A9", "http:x?é",
	"http://a.test/a\"b<c>d^e`f{g}h|i\\j",
}

func TestAppendPathOf(t *testing.T) {
	t.Parallel()
	for _, in := range pathURLs {
		u, err := url.Parse(in)
		if err != nil {
			continue // not every string above parses; those that do count
		}
		want := referencePathOf(u)
		if got := PathOf(u); got != want {
			t.Errorf("PathOf(%q) = %q; want %q", in, got, want)
		}
		var buf [PathBufSize]byte
		if got := string(AppendPath(buf[:0], u)); got != want {
			t.Errorf("AppendPath(%q) = %q; want %q", in, got, want)
		}
		if got := string(AppendPath([]byte("x"), u)); got != "x"+want {
			t.Errorf("AppendPath(x, %q) = %q; want x%q", in, got, want)
		}
	}
	// Hand-made URLs: a stale RawPath, an opaque authority, '*'.
	stale, _ := url.Parse("http://a.test/a%2Fb")
	stale.Path = "/other"
	for _, u := range []*url.URL{
		stale,
		{Scheme: "http", Host: "a.test", Opaque: "//a.test/o/p"},
		{Scheme: "http", Host: "a.test", Opaque: "//a.test"},
		{Scheme: "http", Host: "a.test", Path: "*"},
		{Scheme: "http", Host: "a.test", Path: "/a b", RawPath: "/a%20b"},
		{Scheme: "http", Host: "a.test", Path: "/a", ForceQuery: true},
	} {
		want := referencePathOf(u)
		if got := string(AppendPath(nil, u)); got != want || PathOf(u) != want {
			t.Errorf("AppendPath(%#v) = %q, PathOf %q; want %q", u, got, PathOf(u), want)
		}
	}
}

// The hook builds paths in a stack array: no allocation while they fit.
func TestAppendPathOfDoesNotAllocate(t *testing.T) {
	for _, in := range []string{"http://a.test/café?q=é", "http://a.test/a b", "http://a.test/x?y", "http:opaque/é"} {
		u, _ := url.Parse(in)
		n := testing.AllocsPerRun(100, func() {
			var buf [PathBufSize]byte
			_ = AppendPath(buf[:0], u)
		})
		if n != 0 {
			t.Errorf("AppendPath(%q) allocates %v times", in, n)
		}
	}
}

// FuzzPathOf compares PathOf and AppendPath with the plain form on any
// URL net/url parses, and RequestPath with the general search.
func FuzzPathOf(f *testing.F) {
	for _, s := range pathURLs {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if u, err := url.Parse(in); err == nil {
			want := referencePathOf(u)
			if got := PathOf(u); got != want {
				t.Fatalf("PathOf(%q) = %q; want %q", in, got, want)
			}
			var buf [64]byte
			if got := string(AppendPath(buf[:0], u)); got != want {
				t.Fatalf("AppendPath(%q) = %q; want %q", in, got, want)
			}
		}
		if got, want := RequestPath(in), plainRequestPath(in); got != want {
			t.Fatalf("RequestPath(%q) = %q; want %q", in, got, want)
		}
	})
}

// plainRequestPath is RequestPath by the general search: the path from
// pathStart, cut at '#', with a leading '/' and non-ASCII octets escaped.
func plainRequestPath(in string) string {
	k, ok := pathStart(in)
	if !ok {
		return "/"
	}
	want := in[k:]
	if h := strings.IndexByte(want, '#'); h >= 0 {
		want = want[:h]
	}
	if want[0] != '/' {
		want = "/" + want
	}
	return escapeNonASCII(want)
}

// The octet classes are what their doc comments list: pathKeeps and
// rawKeeps as net/url's EscapedPath keeps.
func TestOctetSets(t *testing.T) {
	t.Parallel()
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	for c := range 256 {
		b := byte(c)
		if got, want := pathKeeps(b), strings.IndexByte(alnum+"-._~$&+,/:;=@", b) >= 0 && b != 0; got != want {
			t.Errorf("pathKeeps(%q) = %v", b, got)
		}
		if got, want := rawKeeps(b), strings.IndexByte(alnum+"-._~$&+,/:;=@!'()*[]", b) >= 0 && b != 0; got != want {
			t.Errorf("rawKeeps(%q) = %v", b, got)
		}
		u := &url.URL{Path: "/" + string([]byte{b})}
		if got, want := pathKeeps(b), u.EscapedPath() == u.Path; got != want {
			t.Errorf("pathKeeps(%q) = %v; net/url keeps it: %v", b, got, want)
		}
	}
}

// A '#' or an octet to escape at every position of paths of every length
// up to 24 must give what cutting at the first '#' and escaping octet by
// octet gives, after a scheme and authority too.
func TestRequestPathEveryPosition(t *testing.T) {
	t.Parallel()
	for n := 1; n <= 24; n++ {
		for _, special := range []byte{'#', 0xC3, '%'} {
			for at := 1; at < n; at++ {
				for _, second := range []int{-1, 0, 1, 7, 8} {
					b := []byte("/" + strings.Repeat("abcdefgh", 3))[:n]
					b[at] = special
					if k := at + second; second >= 0 && k > 0 && k < n {
						b[k] = 0xA9
					}
					in := string(b)
					want := in
					if k := strings.IndexByte(want, '#'); k >= 0 {
						want = want[:k]
					}
					var esc strings.Builder
					for i := 0; i < len(want); i++ {
						if c := want[i]; c >= 0x80 {
							fmt.Fprintf(&esc, "%%%02X", c)
						} else {
							esc.WriteByte(c)
						}
					}
					if got := RequestPath(in); got != esc.String() {
						t.Errorf("RequestPath(%q) = %q; want %q", in, got, esc.String())
					}
					for _, u := range []string{"https://example.com" + in, "HTTP://example.com" + in, "http://a" + in} {
						if got := RequestPath(u); got != esc.String() {
							t.Errorf("RequestPath(%q) = %q; want %q", u, got, esc.String())
						}
					}
				}
			}
		}
	}
}

// The authority after "http://" or "https://" (in any case) ends at its
// first '/', '?', ';' or '#', wherever that falls in the eight-octet words
// authorityEnd reads; pathStart, the general search, must agree.
func TestAuthorityEveryLength(t *testing.T) {
	t.Parallel()
	for _, scheme := range []string{"http://", "https://", "HTTP://", "hTtPs://", "http:/", "httpx://", "ftp://"} {
		for n := 0; n <= 20; n++ {
			// Hosts of one octet repeated, among them the octets that
			// authorityEnd's word test cannot tell from the four ends
			// by itself.
			for _, c := range "h37+'" {
				host := strings.Repeat(string(c), n)
				for _, rest := range []string{"", "/p", "?q", ";r", "#f", "/a#b", "#/a"} {
					u := scheme + host + rest
					if got, want := RequestPath(u), plainRequestPath(u); got != want {
						t.Errorf("RequestPath(%q) = %q; want %q", u, got, want)
					}
				}
			}
		}
	}
}

func TestPathOf(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"http://a.test", "/"},
		{"http://a.test/", "/"},
		{"http://a.test/a/b?x=1&y=%20", "/a/b?x=1&y=%20"},
		{"http://a.test/a%2Fb", "/a%2Fb"},
		{"http://a.test/a%2fb", "/a%2fb"},
		{"http://a.test/a b", "/a%20b"},
		{"http://a.test/caf%C3%A9", "/caf%C3%A9"},
		{"http://a.test/café", "/caf%C3%A9"},
		{"http://a.test/x?", "/x?"},
		{"http://a.test//double", "//double"},
		{"http://a.test/p;params?q", "/p;params?q"},
		{"http://a.test/x#frag", "/x"},
		{"http:opaque/path?q=1", "/opaque/path?q=1"},
		{"http://a.test/?q=é", "/?q=%C3%A9"},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.in)
		if err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		if got := PathOf(u); got != tt.want {
			t.Errorf("PathOf(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// A stale RawPath (Path changed by hand) is not trusted.
	u, _ := url.Parse("http://a.test/a%2Fb")
	u.Path = "/other"
	if got := PathOf(u); got != "/other" {
		t.Errorf("stale RawPath: %q", got)
	}
	// Opaque with an authority.
	u = &url.URL{Scheme: "http", Host: "a.test", Opaque: "//a.test/o/p"}
	if got := PathOf(u); got != "/o/p" {
		t.Errorf("opaque authority: %q", got)
	}
}
