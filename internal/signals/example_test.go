package signals_test

import (
	"fmt"

	"github.com/robotsext/robotsext/internal/signals"
	"github.com/robotsext/robotsext/internal/tdmrep"
)

// Every mechanism states its preference for one URL, and they combine to
// the most restrictive. Here robots.txt allows training under /open/ with
// Content-Usage, but a Content-Signal line for every path, and the
// origin's tdmrep.json, say no; the page's own Content-Signal header
// allows search.
func Example() {
	var robots signals.PathMatches
	robots.Add(signals.SourceContentSignal, len("/"),
		signals.ParseDictionary("search=yes, ai-train=no", signals.DialectContentSignal, signals.SourceContentSignal, 2))
	robots.Add(signals.SourceContentUsage, len("/open/"),
		signals.ParseDictionary("train-ai=y", signals.DialectContentUsage, signals.SourceContentUsage, 3))
	stmts := robots.Statements(nil)

	file, err := tdmrep.Parse([]byte(`[{"location": "/open/", "tdm-reservation": 1}]`))
	if err != nil {
		panic(err)
	}
	d := tdmrep.FromHeader(nil, nil).Over(file.Declaration("/open/a"))
	if s, ok := signals.TDMRep(d); ok {
		stmts = signals.Combine(stmts, s)
	}
	stmts = signals.Combine(stmts, signals.ContentSignalHeader([]string{"search=yes"})...)

	signals.SortByKey(stmts)
	for _, s := range stmts {
		fmt.Println(s)
	}
	// Output:
	// search=y (Content-Signal line 2)
	// train-ai=n (Content-Signal line 2)
}
