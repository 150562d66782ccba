package useragent

import (
	"fmt"
	"sync"
	"testing"
)

func TestHasContact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    string
		want bool
	}{
		{"Mozilla/5.0 (compatible; FooBot/1.0; +https://example.com/bot)", true},
		{"FooBot/1.0 (+http://foo.test/bot.html)", true},
		{"FooBot/1.0 (HTTPS://FOO.TEST)", true},
		{"FooBot/1.0 (crawler-ops@foo.test)", true},
		{"FooBot/1.0 (mailto:Ops.Team+bot@mail.foo.test)", true},
		{"a@b @ x@mail.foo.test", true}, // the second '@' joins a mailbox
		{"FooBot/1.0", false},
		{"FooBot/1.0 (+www.foo.test/bot)", false}, // no scheme: not a URL
		{"FooBot/1.0 (https://)", false},
		{"FooBot/1.0 (https:// foo.test)", false},
		{"FooBot/1.0 (me@localhost)", false},
		{"FooBot/1.0 (@foo.test)", false},
		{"FooBot/1.0 (a@b.c1)", false},
		{"FooBot/1.0 (a@b.c)", false},
		{"FooBot/1.0 (a@.test)", false},
		{"@", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := HasContact(tt.s); got != tt.want {
			t.Errorf("HasContact(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

func TestIsDefault(t *testing.T) {
	t.Parallel()
	for token, want := range map[string]bool{
		"colly": true, "COLLY": true, "Go-http-client": true, "robotsext": true, "RobotsExt": true,
		"FooBot": false, "": false, "coll": false, "Go": false,
	} {
		if got := IsDefault(token); got != want {
			t.Errorf("IsDefault(%q) = %v, want %v", token, got, want)
		}
	}
}

func TestRecommend(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ua, token, want string
	}{
		{"FooBot/2.3.1-beta (x)", "FooBot", "Mozilla/5.0 (compatible; FooBot/2.3.1-beta; +https://example.com/bot)"},
		{"foobot/7", "FooBot", "Mozilla/5.0 (compatible; FooBot/7; +https://example.com/bot)"},
		{"FooBot", "FooBot", "Mozilla/5.0 (compatible; FooBot/1.0; +https://example.com/bot)"},
		{"FooBot/ (x)", "FooBot", "Mozilla/5.0 (compatible; FooBot/1.0; +https://example.com/bot)"},
		{"AcmeBot/3", "MyCrawler", "Mozilla/5.0 (compatible; MyCrawler/1.0; +https://example.com/bot)"},
		{"colly - https://github.com/gocolly/colly", "colly", Recommended},
		{"Go-http-client/1.1", "Go-http-client", Recommended},
		{"", "", Recommended},
	}
	for _, tt := range tests {
		if got := Recommend(tt.ua, tt.token); got != tt.want {
			t.Errorf("Recommend(%q, %q) = %q, want %q", tt.ua, tt.token, got, tt.want)
		}
	}
}

// TestJudged: each User-Agent is to be judged once, the first MaxJudged
// of them; the bound is told once, and a User-Agent seen again, last or
// earlier, gives nothing.
func TestJudged(t *testing.T) {
	t.Parallel()
	var j Judged
	judged, told := 0, 0
	for i := range MaxJudged + 10 {
		ua := fmt.Sprintf("Bot%d/1.0", i)
		for range 2 {
			judge, full := j.See(ua)
			if judge {
				judged++
			}
			if full {
				told++
			}
		}
	}
	if judged != MaxJudged || told != 1 {
		t.Errorf("%d judged and the bound told %d times, want %d and 1", judged, told, MaxJudged)
	}
	if judge, full := j.See("Bot0/1.0"); judge || full {
		t.Errorf("an earlier User-Agent seen again: judge %v, full %v", judge, full)
	}
	if n := j.Len(); n != MaxJudged {
		t.Errorf("Len = %d, want %d", n, MaxJudged)
	}
}

// TestJudgedConcurrent: User-Agents seen from many goroutines at once
// are each judged exactly once.
func TestJudgedConcurrent(t *testing.T) {
	t.Parallel()
	var j Judged
	var mu sync.Mutex
	counts := map[string]int{}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 16 {
				ua := fmt.Sprintf("Bot%d", (i+g)%16)
				if judge, _ := j.See(ua); judge {
					mu.Lock()
					counts[ua]++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if len(counts) != 16 {
		t.Errorf("%d User-Agents judged, want 16", len(counts))
	}
	for ua, n := range counts {
		if n != 1 {
			t.Errorf("%s judged %d times", ua, n)
		}
	}
}

// TestJudgedSeenAllocs: seeing the User-Agent seen last allocates nothing.
func TestJudgedSeenAllocs(t *testing.T) {
	var j Judged
	ua := "FooBot/1.0 (+https://foo.test)"
	j.See(ua)
	if n := testing.AllocsPerRun(100, func() { j.See(ua) }); n != 0 {
		t.Errorf("See of the last User-Agent: %v allocations, want 0", n)
	}
}

func TestContainsFold(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s, sub string
		want   bool
	}{
		{"Mozilla/5.0 (compatible; FooBot/1.0)", "foobot", true},
		{"FOOBOT", "FooBot", true},
		{"FooBot", "FooBots", false},
		{"Foo-Bot", "foobot", false},
		{"anything", "", true},
		{"", "x", false},
		{"\u212aelvin", "kelvin", false}, // ASCII folding only: the Kelvin sign is not K
	}
	for _, tt := range tests {
		if got := ContainsFold(tt.s, tt.sub); got != tt.want {
			t.Errorf("ContainsFold(%q, %q) = %v, want %v", tt.s, tt.sub, got, tt.want)
		}
	}
}

func TestLacks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		token                            string
		noToken, defaultToken, noContact bool
		want                             string
	}{
		{"FooBot", false, false, false, ""},
		{"", true, false, true, "it names no crawler, and it carries no contact (no http(s) URL and no e-mail address)"},
		{"Go-http-client", false, true, false, `its product token "Go-http-client" is a framework's default, not the crawler's own name`},
		{"COLLY", false, true, true, `its product token "COLLY" is a framework's default, not the crawler's own name (Colly's default User-Agent carries Colly's URL, not the operator's), and it carries no contact (no http(s) URL and no e-mail address)`},
	}
	for _, tt := range tests {
		if got := Lacks(tt.token, tt.noToken, tt.defaultToken, tt.noContact); got != tt.want {
			t.Errorf("Lacks(%q, %v, %v, %v) = %q, want %q", tt.token, tt.noToken, tt.defaultToken, tt.noContact, got, tt.want)
		}
	}
}
