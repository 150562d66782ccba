package robotstxt

import "testing"

// TestBareTokenMemo: a Policy answers BareToken as the function does,
// whatever it remembers: a string at the remembered token's address with
// another length is scanned, and so is a token asked after the first.
func TestBareTokenMemo(t *testing.T) {
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
		{"a version", "FooBot/2", false},
		{"empty", "", false},
		{"the wildcard", "*", false},
		{"non-ASCII", "Fööbot", false},
	}
	var p Policy
	p.Parse([]byte("User-agent: *\nDisallow: /x\n"))
	var null *Policy
	for _, st := range steps {
		if got := p.BareToken(st.token); got != st.want {
			t.Errorf("%s: BareToken(%q) = %v, want %v", st.name, st.token, got, st.want)
		}
		if got := null.BareToken(st.token); got != st.want {
			t.Errorf("%s: nil Policy: BareToken(%q) = %v, want %v", st.name, st.token, got, st.want)
		}
		if got := BareToken(st.token); got != st.want {
			t.Errorf("%s: the function: BareToken(%q) = %v, want %v", st.name, st.token, got, st.want)
		}
	}
	known := []struct {
		token string
		want  bool
	}{
		{ua[:6], true},    // the first bare token asked
		{ua, false},       // its address, another length
		{"BarBot", false}, // bare, but asked after the first
		{"FooBot/2", false},
	}
	for _, k := range known {
		if got := p.KnownToken(k.token); got != k.want {
			t.Errorf("KnownToken(%q) = %v, want %v", k.token, got, k.want)
		}
		if null.KnownToken(k.token) {
			t.Errorf("nil Policy: KnownToken(%q) = true", k.token)
		}
	}
}

// TestBareTokenConcurrent: goroutines asking one Policy about their own
// tokens at once, the first of them remembered, all get the function's
// answer (run under -race, which checks the memo's publication).
func TestBareTokenConcurrent(t *testing.T) {
	t.Parallel()
	var p Policy
	p.Parse([]byte("User-agent: *\nDisallow: /x\n"))
	tokens := []string{"ABot", "B-bot", "C_bot", "DBot/1", "E bot", "FBot"}
	done := make(chan string, len(tokens))
	for _, tok := range tokens {
		go func() {
			want := BareToken(tok)
			for range 200 {
				if p.BareToken(tok) != want {
					done <- tok
					return
				}
			}
			done <- ""
		}()
	}
	for range tokens {
		if tok := <-done; tok != "" {
			t.Errorf("BareToken(%q) differs from the function's answer", tok)
		}
	}
}
