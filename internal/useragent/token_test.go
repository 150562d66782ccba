package useragent

import (
	"strings"
	"testing"
)

// crawlerUserAgents are User-Agent headers of well-known crawlers, written
// exactly as their operators publish them (Chrome versions are the
// examples the operators give), with the token robots.txt groups are
// matched against. Google-Extended is missing on purpose: it is a
// robots.txt token only, sent in no User-Agent (Google's own crawlers
// fetch for it), so it can only be given to WithUserAgent; see
// TestReduceToken.
var crawlerUserAgents = []struct {
	name, ua, want string
}{
	// Search engines.
	{"Googlebot desktop", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Googlebot/2.1; +http://www.google.com/bot.html) Chrome/120.0.0.0 Safari/537.36", "Googlebot"},
	{"Googlebot desktop (classic)", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "Googlebot"},
	{"Googlebot smartphone", "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "Googlebot"},
	{"Googlebot (bare)", "Googlebot/2.1 (+http://www.google.com/bot.html)", "Googlebot"},
	{"Googlebot-Image", "Googlebot-Image/1.0", "Googlebot-Image"},
	{"Bingbot desktop", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36", "bingbot"},
	{"Bingbot (classic)", "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)", "bingbot"},
	{"DuckDuckBot", "DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)", "DuckDuckBot"},
	{"DuckDuckBot-Https", "Mozilla/5.0 (compatible; DuckDuckBot-Https/1.1; https://duckduckgo.com/duckduckbot)", "DuckDuckBot-Https"},
	{"YandexBot", "Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)", "YandexBot"},
	{"YandexBot with rendering", "Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/81.0.4044.268", "YandexBot"},
	{"YandexMobileBot", "Mozilla/5.0 (iPhone; CPU iPhone OS 8_1 like Mac OS X) AppleWebKit/600.1.4 (KHTML, like Gecko) Version/8.0 Mobile/12B411 Safari/600.1.4 (compatible; YandexMobileBot/3.0; +http://yandex.com/bots)", "YandexMobileBot"},
	{"Baiduspider", "Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)", "Baiduspider"},
	{"Baiduspider-render mobile", "Mozilla/5.0 (iPhone;CPU iPhone OS 9_1 like Mac OS X) AppleWebKit/601.1.46 (KHTML, like Gecko)Version/9.0 Mobile/13B143 Safari/601.1 (compatible; Baiduspider-render/2.0;+http://www.baidu.com/search/spider.html)", "Baiduspider-render"},
	{"Baiduspider-image", "Baiduspider-image+(+http://www.baidu.com/search/spider.htm)", "Baiduspider-image"},
	{"Applebot desktop", "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)", "Applebot"},
	{"Applebot iPhone", "Mozilla/5.0 (iPhone; CPU iPhone OS 8_1 like Mac OS X) AppleWebKit/600.1.4 (KHTML, like Gecko) Version/8.0 Mobile/12B410 Safari/600.1.4 (Applebot/0.1; +http://www.apple.com/go/applebot)", "Applebot"},
	// AI crawlers and fetchers.
	{"GPTBot", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.1; +https://openai.com/gptbot", "GPTBot"},
	{"ChatGPT-User", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot", "ChatGPT-User"},
	{"OAI-SearchBot", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot", "OAI-SearchBot"},
	{"ClaudeBot", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)", "ClaudeBot"},
	{"Claude-User", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)", "Claude-User"},
	{"CCBot", "CCBot/2.0 (https://commoncrawl.org/faq/)", "CCBot"},
	{"CCBot (old)", "CCBot/1.0 (+https://commoncrawl.org/bot.html)", "CCBot"},
	{"PerplexityBot", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)", "PerplexityBot"},
	// Social previews.
	{"facebookexternalhit", "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)", "facebookexternalhit"},
	{"Twitterbot", "Twitterbot/1.0", "Twitterbot"},
	{"Twitterbot (compatible)", "Mozilla/5.0 (compatible; Twitterbot/1.0)", "Twitterbot"},
	{"LinkedInBot", "LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)", "LinkedInBot"},
	{"LinkedInBot (Jakarta)", "LinkedInBot/1.0 (compatible; Mozilla/5.0; Jakarta Commons-HttpClient/3.1 +http://www.linkedin.com)", "LinkedInBot"},
	{"Slackbot-LinkExpanding", "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)", "Slackbot-LinkExpanding"},
	{"Slackbot", "Slackbot 1.0 (+https://api.slack.com/robots)", "Slackbot"},
	{"Discordbot", "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)", "Discordbot"},
	// Feed readers.
	{"Feedly", "Feedly/1.0 (+https://feedly.com/fetcher.html; 1 subscriber)", "Feedly"},
	{"Feedfetcher-Google", "Feedfetcher-Google; (+http://www.google.com/feedfetcher.html; 16 subscribers; feed-id=12310981209483785)", "Feedfetcher-Google"},
	{"NewsBlur", "NewsBlur Feed Fetcher - 1 subscriber - https://newsblur.com", "NewsBlur"},
	{"YahooFeedSeeker", "YahooFeedSeeker/1.0 (compatible; Mozilla 4.0; MSIE 5.5; http://my.yahoo.com/s/publishers.html; users 2; views 169)", "YahooFeedSeeker"},
}

// TestTokenFromUserAgentCrawlers checks the token of every published
// crawler User-Agent in crawlerUserAgents.
func TestTokenFromUserAgentCrawlers(t *testing.T) {
	t.Parallel()
	for _, tt := range crawlerUserAgents {
		if got := Token(tt.ua); got != tt.want {
			t.Errorf("%s: Token(%q) = %q, want %q", tt.name, tt.ua, got, tt.want)
		}
	}
}

// TestTokenFromUserAgentRules checks each rule of Token and
// the cases around them: browsers, libraries, odd spacing, junk.
func TestTokenFromUserAgentRules(t *testing.T) {
	t.Parallel()
	tests := []struct{ ua, want string }{
		// Rule 1: "compatible;".
		{"Mozilla/5.0 (compatible; AcmeBot/2.1; +https://acme.example/bot)", "AcmeBot"},
		{"Mozilla/5.0 (COMPATIBLE ;  AcmeBot)", "AcmeBot"},
		{"Mozilla/5.0 (compatible;AcmeBot/2.1)", "AcmeBot"},
		{"Mozilla/5.0 (compatible; Acme_Bot-2/1.0)", "Acme_Bot-"},
		{"FooBot/1.0 (compatible; BarBot/2.0)", "BarBot"},                         // the order: compatible first
		{"Mozilla/5.0 (compatible; Mozilla/5.0; compatible; AcmeBot)", "AcmeBot"}, // the first usable one
		{"Mozilla/5.0 (incompatible; AcmeFetcher/1.0)", ""},                       // not the word "compatible"
		{"Mozilla/5.0 (compatible: AcmeFetcher/1.0)", ""},                         // no ';'
		{"Mozilla/5.0 (compatible; /1.0)", ""},                                    // nothing after it
		{"Mozilla/5.0 (compatible;", ""},
		{"compatible; AcmeBot", "AcmeBot"},
		// Browsers, with or without "compatible;": nobody.
		{"Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1; SV1)", ""},
		{"Mozilla/5.0 (compatible; MSIE 9.0; Windows NT 6.1; Trident/5.0)", ""},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36", ""},
		{"Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36", ""},
		{"Mozilla/5.0 (Macintosh; Intel Mac OS X 14.1; rv:121.0) Gecko/20100101 Firefox/121.0", ""},
		{"Opera/9.80 (X11; Linux x86_64) Presto/2.12.388 Version/12.16", ""},
		{"Mozilla/5.0", ""},
		{"Mozilla", ""},
		// Rule 2: the leading product token.
		{"FooBot/1.0 (+url)", "FooBot"},
		{"colly - https://github.com/gocolly/colly/v2", "colly"},
		{"AcmeBot", "AcmeBot"},
		{"Go-http-client/1.1", "Go-http-client"},
		{"python-requests/2.31.0", "python-requests"},
		{"curl/8.5.0", "curl"},
		{"Foo_Bar-baz2", "Foo_Bar-baz"}, // cut as robots.txt lines are cut
		{"Mozillabot/1.0", "Mozillabot"},
		// Rule 3: a crawler hidden in a browser-style User-Agent.
		{"Mozilla/5.0 (TweetmemeBot/4.0; +http://datasift.com/bot.html) Gecko/20100101 Firefox/31.0", "TweetmemeBot"},
		{"Mozilla/5.0 (Macintosh) Safari/605.1.15 (AcmeFetcher/1.0; +https://acme.example/)", "AcmeFetcher"},
		{"Mozilla/5.0 (Macintosh) Safari/605.1.15 (AcmeFetcher/1.0; ops@acme.example)", "AcmeFetcher"},
		{"Mozilla/5.0 (Macintosh) Safari/605.1.15 (AcmeFetcher/1.0)", ""}, // no contact: could be anything
		{"Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0.0.0 Safari/537.36 AcmeSpider/1.0", "AcmeSpider"},
		{"Mozilla/5.0 (X11; Linux x86_64; +https://example.com/) Chrome/120.0.0.0", ""}, // "X11" is no product
		{"Mozilla/5.0 (X11; Linux; https://example.com/bot.html) Chrome/1", ""},         // "bot" inside a URL
		{"Mozilla/5.0 ((nested (AcmeBot/1.0)", "AcmeBot"},
		{"Mozilla/5.0 (unclosed; +http://x AcmeCrawler", "AcmeCrawler"},
		{"Mozilla/5.0 (Safari/1.0; +http://x) Bot/1.0", ""}, // "Bot" alone is no name
		// White space, empty input and junk.
		{"  FooBot/1.0  ", "FooBot"},
		{"\tMozilla/5.0 (compatible; AcmeBot/2.1)\n", "AcmeBot"},
		{"", ""},
		{"   ", ""},
		{"/1.0", ""},
		{"123", ""},
		{"(compatible", ""},
		{";;;", ""},
		{"\xff\xfe compatible; \xffBot", ""},
		{"ÄcmeBot/1.0", ""},
	}
	for _, tt := range tests {
		if got := Token(tt.ua); got != tt.want {
			t.Errorf("Token(%q) = %q, want %q", tt.ua, got, tt.want)
		}
	}
}

// TestReduceToken checks how WithUserAgent values are reduced.
func TestReduceToken(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		reduced  bool
	}{
		{"AcmeBot", "AcmeBot", false},
		{"Google-Extended", "Google-Extended", false}, // a token only: no User-Agent carries it
		{"Applebot-Extended", "Applebot-Extended", false},
		{"foo_bar", "foo_bar", false},
		{"", "", false},
		{"AcmeBot/2.1", "AcmeBot", true},
		{" AcmeBot ", "AcmeBot", true},
		{"Mozilla/5.0 (compatible; AcmeBot/2.1; +https://acme.example/bot)", "AcmeBot", true},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36", "", true},
		{"*", "", true},
		{"Acme Bot", "Acme", true},
		{"2Bot", "", true},
	}
	for _, tt := range tests {
		got, reduced := Reduce(tt.in)
		if got != tt.want || reduced != tt.reduced {
			t.Errorf("Reduce(%q) = %q, %v; want %q, %v", tt.in, got, reduced, tt.want, tt.reduced)
		}
	}
}

// TestTokenFromUserAgentLong checks that long and adversarial input is
// handled: the heuristics must stay linear, so these finish at once.
func TestTokenFromUserAgentLong(t *testing.T) {
	t.Parallel()
	const n = 1 << 16
	tests := []struct{ ua, want string }{
		{"Mozilla/5.0 " + strings.Repeat("(", n), ""},
		{"Mozilla/5.0 " + strings.Repeat("compatible ", n), ""},
		{"Mozilla/5.0 " + strings.Repeat("compatible; Mozilla ", n), ""},
		{"Mozilla/5.0 " + strings.Repeat("(x; +http ", n) + "AcmeBot", "AcmeBot"},
		{strings.Repeat("a", n), strings.Repeat("a", n)},
		{"Mozilla/5.0 (compatible; " + strings.Repeat("B", n) + "ot)", strings.Repeat("B", n) + "ot"},
	}
	for _, tt := range tests {
		if got := Token(tt.ua); got != tt.want {
			t.Errorf("Token(%.40q…) = %.40q…, want %.40q…", tt.ua, got, tt.want)
		}
	}
}

// FuzzTokenFromUserAgent checks that any input gives a token or "", cut
// from the input, and that Reduce agrees with it.
func FuzzTokenFromUserAgent(f *testing.F) {
	for _, tt := range crawlerUserAgents {
		f.Add(tt.ua)
	}
	for _, s := range []string{"", "colly - https://github.com/gocolly/colly/v2", "Mozilla/5.0 (compatible;", "((((", "AcmeBot"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ua string) {
		got := Token(ua)
		if got != "" && !IsToken(got) {
			t.Fatalf("Token(%q) = %q: not a token", ua, got)
		}
		if !strings.Contains(ua, got) {
			t.Fatalf("Token(%q) = %q: not in the input", ua, got)
		}
		tok, reduced := Reduce(ua)
		switch {
		case !reduced && tok != ua:
			t.Fatalf("Reduce(%q) = %q, false: changed but not reported", ua, tok)
		case reduced && tok != got:
			t.Fatalf("Reduce(%q) = %q, want Token's %q", ua, tok, got)
		case reduced == (ua == "" || IsToken(ua)):
			t.Fatalf("Reduce(%q) reduced = %v", ua, reduced)
		}
	})
}

// TestTokenDerivation checks the tokens of Colly's default User-Agent and
// of a few plain forms.
func TestTokenDerivation(t *testing.T) {
	t.Parallel()
	for ua, want := range map[string]string{
		"colly - https://github.com/gocolly/colly": "colly",
		"MyBot/1.2 (+https://example.com)":         "MyBot",
		"  Foo_Bar-baz2":                           "Foo_Bar-baz",
		"/1.0":                                     "",
	} {
		if got := Token(ua); got != want {
			t.Errorf("Token(%q) = %q, want %q", ua, got, want)
		}
	}
}
