// Command usage_preferences crawls a small demo site, served from files
// embedded in the program, as a crawler collecting AI training data
// (robotsext.WithPurpose(robotsext.PurposeTrainAI)), and prints a report:
// what it fetched with the preferences in force, and what it refused and
// why. It needs no network.
//
//	go run ./_examples/usage_preferences
package main

import (
	"embed"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
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
		if r.URL.Path == "/.well-known/tdmrep.json" {
			// TDMRep: text and data mining rights reserved on the archive.
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `[{"location": "/archive/", "tdm-reservation": 1}]`)
			return
		}
		if strings.HasPrefix(r.URL.Path, "/gallery") {
			// The gallery's pages say in their header: not for training.
			w.Header().Set("Content-Usage", "train-ai=n")
		}
		fileServer.ServeHTTP(w, r)
	}))
	defer srv.Close()

	c := colly.NewCollector(colly.UserAgent("TrainBot/1.0 (+https://example.com/bot)"))
	ext := robotsext.Apply(c, robotsext.WithPurpose(robotsext.PurposeTrainAI))

	var mu sync.Mutex
	var report []string
	ext.OnBlocked(func(r *colly.Request, v robotsext.Verdict) {
		where := fmt.Sprintf("robots.txt line %d: %s", v.Line, v.Rule)
		if v.Reason == robotsext.ReasonUsage && v.Line == 0 {
			where = v.Rule // a header, tdmrep.json, a meta tag
		}
		mu.Lock()
		report = append(report, fmt.Sprintf("REFUSED  %-22s %s (%s)", r.URL.Path, v.Reason, where))
		mu.Unlock()
	})
	c.OnResponse(func(r *colly.Response) {
		v, _ := ext.Check(r.Request.URL.String())
		mu.Lock()
		report = append(report, fmt.Sprintf("FETCHED  %-22s train-ai: %v  [%v]", r.Request.URL.Path, v.Usage.For(robotsext.PurposeTrainAI), v.Usage))
		mu.Unlock()
	})
	c.OnHTML("a[href]", func(e *colly.HTMLElement) { _ = e.Request.Visit(e.Attr("href")) })

	_ = c.Visit(srv.URL + "/")
	c.Wait()

	fmt.Println("Crawl of the demo site for AI training (PurposeTrainAI):")
	for _, line := range report {
		fmt.Println("  " + line)
	}
	st := ext.Stats()
	fmt.Printf("Refused before fetching by usage preferences: %d; pages withheld at their headers: %d\n", st.UsageRefused, st.UsageWithheld)
}
