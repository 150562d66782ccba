// Package robotsext makes Colly collectors obey robots.txt (RFC 9309)
// correctly, politely and visibly: it decides as Google's reference
// library does, paces each host by its Crawl-delay (one request a second
// when robots.txt states none), backs off when a host asks for less, and
// reports which rule on which line blocked a URL.
//
//	c := colly.NewCollector(colly.UserAgent("Mozilla/5.0 (compatible; AcmeBot/2.1; +https://acme.example/bot)"))
//	ext := robotsext.Apply(c) // matches "User-agent: AcmeBot"
//	ext.OnBlocked(func(r *colly.Request, v robotsext.Verdict) {
//		log.Printf("skipped %s: %s (line %d %q) %v", r.URL, v.Reason, v.Line, v.Rule, v.Err)
//	})
//	detail := c.Clone()
//	ext.Attach(detail) // one robots.txt cache and one pace per host for both
//	c.Visit("https://example.com/")
//
// Per origin, robots.txt is fetched once and cached within RFC 9309's
// 24 hours (bounded by WithCacheSize and WithCacheMemory); an unreachable
// robots.txt blocks the origin (WithFailMode) with a warning and
// Verdict.Err saying why. robots.txt goes out through the collector's own
// transport, proxy included (set before or after Apply), on the
// connections its pages use; WithHTTPClient sets another. Worker
// processes of one crawl share robots.txt and each host's pace through
// WithBackend (the redisbackend module). ParsePolicy and Policy.Check use
// the matcher on its own; FetchRobots fetches one robots.txt as the
// Extension would.
package robotsext
