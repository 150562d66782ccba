package robotstxt

import (
	"strings"
	"testing"
	"unsafe"
)

// remembered reports whether p's memo holds token (the same octets).
func remembered(p *Policy, token string) bool {
	return p.asked.ptr.Load() == unsafe.StringData(token) && p.asked.n == len(token)
}

// TestSelectBareMemo: SelectBare answers as Select and the function
// BareToken do, whatever the Policy remembers: a string at the remembered
// token's address with another length is scanned and searched, and so is
// a token asked after the first.
func TestSelectBareMemo(t *testing.T) {
	t.Parallel()
	ua := "FooBot/1.0"
	steps := []struct {
		name  string
		token string
		want  bool
	}{
		{"the first token, remembered", ua[:6], true},
		{"the same token again", ua[:6], true},
		{"the same address, longer", ua, false},
		{"the same address, shorter", ua[:3], true},
		{"equal octets elsewhere", string([]byte("FooBot")), true},
		{"another token", "BarBot", true},
		{"another token in upper case", "BARBOT", true},
		{"a version", "FooBot/2", false},
		{"empty", "", false},
		{"the wildcard", "*", false},
		{"non-ASCII", "Fööbot", false},
	}
	var p Policy
	p.Parse([]byte("User-agent: *\nDisallow: /x\n\nUser-agent: foobot\nDisallow: /y\n\nUser-agent: barbot\nUser-agent: foo\nDisallow: /z\n"))
	var null *Policy
	for _, st := range steps {
		want := p.Select(st.token)
		if sel, bare := p.SelectBare(st.token); sel != want || bare != st.want {
			t.Errorf("%s: SelectBare(%q) = %v, %v, want %v, %v", st.name, st.token, sel, bare, want, st.want)
		}
		if sel, bare := null.SelectBare(st.token); sel != (Selection{}) || bare != st.want {
			t.Errorf("%s: nil Policy: SelectBare(%q) = %v, %v, want none, %v", st.name, st.token, sel, bare, st.want)
		}
		if got := BareToken(st.token); got != st.want {
			t.Errorf("%s: BareToken(%q) = %v, want %v", st.name, st.token, got, st.want)
		}
	}
	known := []struct {
		token string
		want  bool
	}{
		{ua[:6], true},    // the first bare token asked
		{ua, false},       // its address, another length
		{ua[:3], false},   // bare, but asked after the first
		{"BarBot", false}, // likewise
		{"FooBot/2", false},
	}
	for _, k := range known {
		if got := remembered(&p, k.token); got != k.want {
			t.Errorf("remembered(%q) = %v, want %v", k.token, got, k.want)
		}
	}
}

// TestSelectBareConcurrent: goroutines asking one Policy about their own
// tokens at once, the first of them remembered, all get Select's and
// BareToken's answers (run under -race, which checks the memo's
// publication).
func TestSelectBareConcurrent(t *testing.T) {
	t.Parallel()
	var p Policy
	p.Parse([]byte("User-agent: *\nDisallow: /x\n\nUser-agent: abot\nUser-agent: fbot\nDisallow: /y\n"))
	tokens := []string{"ABot", "B-bot", "C_bot", "DBot/1", "E bot", "FBot"}
	done := make(chan string, len(tokens))
	for _, tok := range tokens {
		go func() {
			want, wantBare := p.Select(tok), BareToken(tok)
			for range 200 {
				if sel, bare := p.SelectBare(tok); sel != want || bare != wantBare {
					done <- tok
					return
				}
			}
			done <- ""
		}()
	}
	for range tokens {
		if tok := <-done; tok != "" {
			t.Errorf("SelectBare(%q) differs from Select and BareToken", tok)
		}
	}
}

// bareTokenRef is BareToken octet by octet, as RFC 9309 §2.2.1 words it.
func bareTokenRef(s string) bool {
	for i := 0; i < len(s); i++ {
		if !IsTokenChar(s[i]) {
			return false
		}
	}
	return s != ""
}

// TestBareTokenOctets: BareToken, which tests eight octets at a time,
// answers as the octet-by-octet definition for every octet value at every
// place of tokens of 1 to 40 octets (each length takes its own path
// through the words), among fillers of every token character, and for
// every string of one and two octets.
func TestBareTokenOctets(t *testing.T) {
	t.Parallel()
	fillers := []string{"a", "z", "A", "Z", "-", "_", "m", "Q"}
	for n := 1; n <= 40; n++ {
		for _, f := range fillers {
			buf := []byte(strings.Repeat(f, n))
			for i := range n {
				for c := range 256 {
					buf[i] = byte(c)
					if s := string(buf); BareToken(s) != bareTokenRef(s) {
						t.Fatalf("BareToken(%q) = %v, want %v", s, BareToken(s), bareTokenRef(s))
					}
				}
				buf[i] = f[0]
			}
		}
	}
	for c := range 1 << 16 {
		for _, s := range []string{string([]byte{byte(c)}), string([]byte{byte(c), byte(c >> 8)})} {
			if BareToken(s) != bareTokenRef(s) {
				t.Fatalf("BareToken(%q) = %v, want %v", s, BareToken(s), bareTokenRef(s))
			}
		}
	}
}

// FuzzBareToken compares BareToken, word by word, with the octet-by-octet
// definition, and SelectBare with Select and BareToken, twice (the second
// time from the memo when the string is a product token).
func FuzzBareToken(f *testing.F) {
	for _, s := range []string{"", "*", "a", "FooBot", "Foo-Bot_2", "Googlebot", "facebookexternalhit", "Fööbot", "foo bot", "ab\x00", "Mediapartners-Google"} {
		f.Add(s)
	}
	robots := []byte("User-agent: *\nDisallow: /x\n\nUser-agent: googlebot\nUser-agent: foo-bot_\nDisallow: /y\n")
	f.Fuzz(func(t *testing.T, s string) {
		want := bareTokenRef(s)
		if got := BareToken(s); got != want {
			t.Fatalf("BareToken(%q) = %v, want %v", s, got, want)
		}
		var q Policy // a fresh memo for each input
		q.Parse(robots)
		for range 2 {
			if sel, bare := q.SelectBare(s); sel != q.Select(s) || bare != want {
				t.Fatalf("SelectBare(%q) = %v, %v; Select says %v, want bare %v", s, sel, bare, q.Select(s), want)
			}
		}
	})
}
