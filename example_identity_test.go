package robotsext_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext"
	"github.com/robotsext/robotsext/webbotauth"
)

// CheckIdentity says what a User-Agent lacks for a site to tell which
// crawler is calling and how to reach its operator.
func ExampleCheckIdentity() {
	for _, ua := range []string{
		"Mozilla/5.0 (compatible; FooBot/1.0; +https://example.com/bot)",
		"FooBot/1.0",
		"colly - https://github.com/gocolly/colly",
	} {
		var e *robotsext.IdentityError
		if err := robotsext.CheckIdentity(ua); errors.As(err, &e) {
			fmt.Printf("%-42q no contact: %-5v framework's default: %v\n", ua, e.NoContact, e.DefaultToken)
		} else {
			fmt.Printf("%-42q identifiable\n", ua)
		}
	}
	// Output:
	// "Mozilla/5.0 (compatible; FooBot/1.0; +https://example.com/bot)" identifiable
	// "FooBot/1.0"                               no contact: true  framework's default: false
	// "colly - https://github.com/gocolly/colly" no contact: false framework's default: true
}

// Under WithStrictIdentity a crawler that cannot say who it is sends
// nothing: here Colly's default User-Agent.
func ExampleWithStrictIdentity() {
	site := exampleSite("User-agent: *\nAllow: /\nCrawl-delay: 0.05\n")
	defer site.Close()

	c := colly.NewCollector() // "colly - https://github.com/gocolly/colly"
	ext := robotsext.Apply(c, robotsext.WithStrictIdentity())
	ext.OnBlocked(func(r *colly.Request, v robotsext.Verdict) {
		fmt.Println("refused:", v.Reason.Label(), errors.Is(v.Err, robotsext.ErrIdentity))
	})
	c.Visit(site.URL + "/")

	c.UserAgent = "Mozilla/5.0 (compatible; FooBot/1.0; +https://example.com/bot)"
	c.OnResponse(func(r *colly.Response) { fmt.Println("fetched", r.Request.URL.Path) })
	c.Visit(site.URL + "/again")
	// Output:
	// refused: identity true
	// fetched /again
}

// WithWebBotAuth signs every request with the operator's Ed25519 key; the
// site verifies it against the key directory the Signature-Agent URL
// names.
func ExampleWithWebBotAuth() {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		input := r.Header.Get("Signature-Input")
		fmt.Printf("%s %s\n", r.URL.Path, input[:strings.Index(input, ")")+1])
		fmt.Println("  Signature-Agent:", r.Header.Get("Signature-Agent"))
		if r.URL.Path == "/robots.txt" { // a short delay keeps the example fast
			fmt.Fprint(w, "User-agent: *\nCrawl-delay: 0.05\n")
		}
	}))
	defer site.Close()

	_, key, err := ed25519.GenerateKey(rand.Reader) // in production: load it from your secret store
	if err != nil {
		log.Fatal(err)
	}
	c := colly.NewCollector(colly.UserAgent("Mozilla/5.0 (compatible; FooBot/1.0; +https://example.com/bot)"))
	robotsext.Apply(c, robotsext.WithWebBotAuth(key, "https://example.com"+webbotauth.DirectoryPath))
	c.Visit(site.URL + "/")
	// Output:
	// /robots.txt sig1=("@method" "@authority" "@path" "signature-agent";key="sig1")
	//   Signature-Agent: sig1="https://example.com/.well-known/http-message-signatures-directory"
	// / sig1=("@method" "@authority" "@path" "signature-agent";key="sig1")
	//   Signature-Agent: sig1="https://example.com/.well-known/http-message-signatures-directory"
}

// The From header (RFC 9110 §10.1.2) names a person responsible for the
// crawler. Set it on the collector: its pages and its robots.txt
// requests carry it.
func Example_fromHeader() {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Println(r.URL.Path, "From:", r.Header.Get("From"))
		if r.URL.Path == "/robots.txt" { // a short delay keeps the example fast
			fmt.Fprint(w, "User-agent: *\nCrawl-delay: 0.05\n")
		}
	}))
	defer site.Close()

	c := colly.NewCollector(
		colly.UserAgent("Mozilla/5.0 (compatible; FooBot/1.0; +https://example.com/bot)"),
		colly.Headers(map[string]string{"From": "crawler-ops@example.com"}),
	)
	robotsext.Apply(c)
	c.Visit(site.URL + "/")
	// Output:
	// /robots.txt From: crawler-ops@example.com
	// / From: crawler-ops@example.com
}
