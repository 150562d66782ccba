// Command page_directives crawls a small demo shop, served from files
// embedded in the program, as DemoBot, and prints a report: which pages it
// stored, which it fetched but did not store because they ask not to be
// indexed, and which links it refused because their page said nofollow.
// It needs no network.
//
// The demo site's robots.txt asks for a short Crawl-delay (50 ms) so
// that the example runs fast; a site that states none is paced one
// request per second (robotsext.DefaultDelay).
//
//	go run ./_examples/page_directives
package main

import (
	"embed"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext"
)

//go:embed site
var files embed.FS

func main() {
	site, _ := fs.Sub(files, "site")
	fileServer := http.FileServer(http.FS(site))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/partners.html":
			w.Header().Add("X-Robots-Tag", "nofollow")
		case "/sale.html":
			w.Header().Add("X-Robots-Tag", "otherbot: none")
			w.Header().Add("X-Robots-Tag", "demobot: unavailable_after: Monday, 30-Nov-2026 23:59:59 GMT, noarchive")
		}
		fileServer.ServeHTTP(w, r)
	}))
	defer srv.Close()

	c := colly.NewCollector(colly.UserAgent("Mozilla/5.0 (compatible; DemoBot/1.0; +https://example.com/bot)"))
	ext := robotsext.Apply(c) // links of nofollow pages are refused by default

	var mu sync.Mutex
	var stored, skipped, refused []string
	ext.OnBlocked(func(r *colly.Request, v robotsext.Verdict) {
		mu.Lock()
		defer mu.Unlock()
		refused = append(refused, fmt.Sprintf("%-22s linked from %s (%s)", r.URL.Path, strings.TrimPrefix(v.Page, srv.URL), v.Rule))
	})
	c.OnResponse(func(r *colly.Response) {
		p := ext.Page(r) // what the page's X-Robots-Tag and meta robots say to DemoBot
		mu.Lock()
		defer mu.Unlock()
		line := fmt.Sprintf("%-22s %s", p.URL.Path, p.Directives)
		if p.Directives.NoIndex {
			skipped = append(skipped, line) // a real crawler would not store it
			return
		}
		stored = append(stored, line)
	})
	c.OnHTML("a[href]", func(e *colly.HTMLElement) { _ = e.Request.Visit(e.Attr("href")) })

	_ = c.Visit(srv.URL + "/")
	c.Wait()

	show := func(title string, lines []string) {
		sort.Strings(lines)
		fmt.Printf("%s (%d):\n", title, len(lines))
		for _, l := range lines {
			fmt.Println("  " + l)
		}
	}
	fmt.Println("Crawl of the demo shop as DemoBot, obeying page directives:")
	show("Stored, with the directives in force", stored)
	show("Fetched but not stored (noindex)", skipped)
	show("Links refused (their page said nofollow)", refused)
	st := ext.Stats()
	fmt.Printf("Pages with directives for DemoBot: %d; links refused: %d\n", st.DirectivePages, st.LinksRefused)
}
