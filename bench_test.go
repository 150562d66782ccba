package robotsext

import (
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robotsext/robotsext/internal/robotstxt"
	temoto "github.com/temoto/robotstxt"
)

// Benchmarks of parsing and checking, side by side with
// github.com/temoto/robotstxt (what Colly uses today) on the same inputs.
// Compare the two columns of one run; absolute figures depend on the machine.
//
//	go test -run '^$' -bench . -benchmem

const benchAgent = "FooBot"

// benchTokens are real crawlers' product tokens, as a service answering
// for many crawlers (or robotscheck -ua A,B,...) is asked with them: the
// changing-token rows of BenchmarkCheck ask each question with the next
// one, a copy of its own, so that no two checks in a row share a token.
var benchTokens = []string{
	"Googlebot", "bingbot", "GPTBot", "ClaudeBot", "CCBot", "Applebot", "YandexBot",
	"Baiduspider", "DuckDuckBot", "facebookexternalhit", "AhrefsBot", "SemrushBot", "FooBot",
}

// benchInput is a robots.txt file and URLs to ask about it.
type benchInput struct {
	name   string
	robots []byte
	urls   []string
}

var smallRobots = "User-agent: *\nDisallow: /private/\nDisallow: /*.pdf$\nAllow: /private/public-page.html\n"

// typicalRobots looks like a CMS's file: a few groups, prefixes and a handful
// of wildcards, a sitemap and a crawl delay.
var typicalRobots = `# robots.txt for a typical site
User-agent: *
Disallow: /wp-admin/
Allow: /wp-admin/admin-ajax.php
Disallow: /cgi-bin/
Disallow: /search
Disallow: /*?replytocom=
Disallow: /*?s=
Disallow: /*/feed/$
Disallow: /tag/*/page/
Disallow: /cart/
Disallow: /checkout/
Disallow: /account/
Crawl-delay: 2

User-agent: FooBot
Disallow: /private/
Disallow: /*.pdf$
Allow: /private/press/
Disallow: /tmp/

User-agent: BadBot
Disallow: /

Sitemap: https://www.example.com/sitemap.xml
`

// letters spells i in base 26 with the letters a-z, so that every agent
// token in a generated file is distinct.
func letters(i int) string {
	var b []byte
	for {
		b = append(b, byte('a'+i%26))
		i /= 26
		if i == 0 {
			return string(b)
		}
	}
}

// largeRobots has many groups with literal and wildcard rules.
func largeRobots() string {
	var b strings.Builder
	for g := range 50 {
		fmt.Fprintf(&b, "User-agent: bot%s\n", letters(g))
		for r := range 40 {
			fmt.Fprintf(&b, "Disallow: /section%d/page%d/\n", g, r)
			if r%4 == 0 {
				fmt.Fprintf(&b, "Disallow: /*/print%d/*.html$\n", r)
			}
		}
	}
	b.WriteString("User-agent: FooBot\n")
	for r := range 200 {
		fmt.Fprintf(&b, "Disallow: /shop/item%d/\nAllow: /shop/item%d/public\n", r, r)
		if r%10 == 0 {
			fmt.Fprintf(&b, "Disallow: /*?session%d=\n", r)
		}
	}
	return b.String()
}

var benchURLs = []string{
	"/", "/about", "/private/secret", "/private/press/2024.html", "/docs/manual.pdf",
	"/wp-admin/admin-ajax.php", "/blog/post/feed/", "/search?q=robots", "/tag/go/page/2",
	"/shop/item150/public/index.html", "/shop/item7/x?session70=1", "/section3/print4/a.html",
}

func syntheticInputs() []benchInput {
	return []benchInput{
		{"small", []byte(smallRobots), benchURLs},
		{"typical", []byte(typicalRobots), benchURLs},
		{"large", []byte(largeRobots()), benchURLs},
	}
}

// corpusEnv names the environment variable that points the benchmarks at
// the real-world corpus: a directory of robots.txt files listed in its
// MANIFEST.tsv (first column), or simply holding *.txt files.
const corpusEnv = "ROBOTSEXT_CORPUS"

// corpusDir is where the corpus is looked for: $ROBOTSEXT_CORPUS, else a
// checkout beside this one.
func corpusDir() string {
	if d := os.Getenv(corpusEnv); d != "" {
		return d
	}
	return filepath.Join("..", "shared", "corpus", "robots")
}

// corpusFiles lists the corpus's files, in MANIFEST.tsv's order when it
// has one.
func corpusFiles(dir string) []string {
	manifest, err := os.ReadFile(filepath.Join(dir, "MANIFEST.tsv"))
	if err != nil {
		files, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
		return files
	}
	var files []string
	for i, line := range strings.Split(string(manifest), "\n") {
		name, _, _ := strings.Cut(line, "\t")
		if i == 0 || name == "" || strings.ContainsAny(name, "/\\") {
			continue // the header, blank lines, and anything outside dir
		}
		files = append(files, filepath.Join(dir, name))
	}
	return files
}

// noCorpus says once, on stderr, that the corpus benchmarks are skipped:
// a skip's reason is printed only with -v, and a missing corpus should not
// pass for a result.
var noCorpus sync.Once

// corpusInputs loads the real-world files of the corpus (see corpusDir),
// with URLs made from each file's own rule paths (so that rules really
// match), or skips the benchmark when the corpus is absent.
func corpusInputs(b *testing.B) []benchInput {
	dir := corpusDir()
	files := corpusFiles(dir)
	if len(files) == 0 {
		msg := fmt.Sprintf("corpus benchmarks skipped: no robots.txt corpus in %s (set %s to its directory)", dir, corpusEnv)
		noCorpus.Do(func() { fmt.Fprintln(os.Stderr, msg) })
		b.Skip(msg)
	}
	var out []benchInput
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, benchInput{filepath.Base(name), data, corpusURLs(data)})
	}
	return out
}

// corpusURLs picks up to 20 paths from the file's rules, with '*' and '$'
// replaced so that they read like URLs, plus a few common pages.
func corpusURLs(robots []byte) []string {
	urls := []string{"/", "/index.html", "/search?q=x", "/images/logo.png"}
	robotstxt.EachDirective(robots, func(d robotstxt.Directive) {
		if len(urls) >= 24 || (d.Key != robotstxt.KeyAllow && d.Key != robotstxt.KeyDisallow) || len(d.Value) == 0 || d.Value[0] != '/' {
			return
		}
		v := strings.NewReplacer("*", "x", "$", "").Replace(string(d.Value))
		urls = append(urls, v, v+"/page.html?id=7")
	})
	return urls
}

func BenchmarkParse(b *testing.B) {
	inputs := syntheticInputs()
	for _, in := range inputs {
		benchParse(b, in.name, [][]byte{in.robots})
	}
	b.Run("corpus", func(b *testing.B) {
		var all [][]byte
		for _, in := range corpusInputs(b) {
			all = append(all, in.robots)
		}
		benchParse(b, "all", all)
	})
}

func benchParse(b *testing.B, name string, files [][]byte) {
	total := 0
	for _, f := range files {
		total += len(f)
	}
	b.Run(name+"/robotsext", func(b *testing.B) {
		b.SetBytes(int64(total))
		b.ReportAllocs()
		allocBytes := measureAlloc(b, func() {
			for _, f := range files {
				_ = ParsePolicy(f)
			}
		})
		b.ReportMetric(allocBytes/float64(total), "allocB/inB")
	})
	// Indexes are built on first use: this is the parse plus the first
	// check for benchAgent, which builds the indexes of its groups.
	b.Run(name+"/robotsext+index", func(b *testing.B) {
		b.SetBytes(int64(total))
		b.ReportAllocs()
		allocBytes := measureAlloc(b, func() {
			for _, f := range files {
				_ = ParsePolicy(f).Check(benchAgent, "/")
			}
		})
		b.ReportMetric(allocBytes/float64(total), "allocB/inB")
	})
	b.Run(name+"/temoto", func(b *testing.B) {
		b.SetBytes(int64(total))
		b.ReportAllocs()
		allocBytes := measureAlloc(b, func() {
			for _, f := range files {
				_, _ = temoto.FromBytes(f)
			}
		})
		b.ReportMetric(allocBytes/float64(total), "allocB/inB")
	})
}

// measureAlloc runs fn b.N times and returns the bytes allocated per run.
// It also reports the process's CPU time per run (see processCPU).
func measureAlloc(b *testing.B, fn func()) float64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu := processCPU()
	b.ResetTimer()
	for range b.N {
		fn()
	}
	b.StopTimer()
	reportCPU(b, cpu, b.N)
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(b.N)
}

// reportCPU reports the CPU time used since start, per operation, as
// "cpu-ns/op": on a busy machine it is steadier than the wall time.
func reportCPU(b *testing.B, start time.Duration, n int) {
	if now := processCPU(); now > 0 && n > 0 {
		b.ReportMetric(float64(now-start)/float64(n), "cpu-ns/op")
	}
}

// loopCPU runs fn b.N times with b.Loop, passing 0, 1, ..., size-1, 0, ...
// (a wrapping counter rather than a division, whose cost would be counted
// against both libraries), and reports its CPU time per call.
func loopCPU(b *testing.B, size int, fn func(i int)) {
	b.ReportAllocs()
	cpu := processCPU()
	n, i := 0, 0
	for ; b.Loop(); n++ {
		fn(i)
		if i++; i == size {
			i = 0
		}
	}
	reportCPU(b, cpu, n)
}

// A check is one question to an already parsed file, asked two ways:
//
//   - colly: temoto as Colly asks it, finding the group on every call
//     (TestAgent; Colly's checkRobots calls FindGroup then Test, which
//     costs the same), against Check on the path;
//   - strict: temoto at its fastest, its group resolved once per file with
//     FindGroup and only Test timed, against Check on the absolute URL,
//     which also finds the path in the URL and the groups for the token.
//
// The strict ratio is the headline (docs/benchmarks.md).
func BenchmarkCheck(b *testing.B) {
	for _, in := range syntheticInputs() {
		benchCheck(b, in.name, []benchInput{in})
	}
	b.Run("corpus", func(b *testing.B) { benchCheck(b, "all", corpusInputs(b)) })
}

func benchCheck(b *testing.B, name string, inputs []benchInput) {
	type question struct {
		ours   *Policy
		theirs *temoto.RobotsData
		group  *temoto.Group // theirs.FindGroup(benchAgent)
		path   string
		url    string // path on an absolute URL
		token  string // for the changing-token row: a copy of one of benchTokens
	}
	var qs []question
	for _, in := range inputs {
		p := ParsePolicy(in.robots)
		t, err := temoto.FromBytes(in.robots)
		if err != nil {
			continue // temoto rejects some files; skip them for both
		}
		g := t.FindGroup(benchAgent)
		for _, u := range in.urls {
			tok := strings.Clone(benchTokens[len(qs)%len(benchTokens)])
			qs = append(qs, question{p, t, g, u, "https://www.example.com" + u, tok})
		}
	}
	if len(qs) == 0 {
		b.Skip("no questions")
	}
	// Every question once before timing, for both libraries: the group
	// indexes a check needs are built on first use, and that one-time
	// cost belongs to the parse (see BenchmarkParse's robotsext+index).
	for _, q := range qs {
		_ = q.ours.Check(benchAgent, q.url)
		_ = q.ours.Check(q.token, q.url)
		_ = q.theirs.TestAgent(q.path, benchAgent)
	}
	b.Run(name+"/colly/robotsext", func(b *testing.B) {
		loopCPU(b, len(qs), func(i int) {
			q := &qs[i]
			_ = q.ours.Check(benchAgent, q.path)
		})
	})
	b.Run(name+"/colly/temoto", func(b *testing.B) {
		loopCPU(b, len(qs), func(i int) {
			q := &qs[i]
			_ = q.theirs.TestAgent(q.path, benchAgent)
		})
	})
	b.Run(name+"/strict/robotsext", func(b *testing.B) {
		loopCPU(b, len(qs), func(i int) {
			q := &qs[i]
			_ = q.ours.Check(benchAgent, q.url)
		})
	})
	b.Run(name+"/strict/temoto", func(b *testing.B) {
		loopCPU(b, len(qs), func(i int) {
			q := &qs[i]
			_ = q.group.Test(q.path)
		})
	})
	// strict/robotsext with a token that changes from check to check.
	b.Run(name+"/strict/robotsext-tokens", func(b *testing.B) {
		loopCPU(b, len(qs), func(i int) {
			q := &qs[i]
			_ = q.ours.Check(q.token, q.url)
		})
	})
}

// The cost of a check must not grow with the number of literal rules:
// compare /20 with /2000.
func BenchmarkCheckLiteralRules(b *testing.B) {
	for _, n := range []int{20, 2000} {
		var sb strings.Builder
		sb.WriteString("User-agent: *\n")
		for i := range n {
			fmt.Fprintf(&sb, "Disallow: /catalog/%05d/\nAllow: /catalog/%05d/public/\n", i*7, i*7)
		}
		p := ParsePolicy([]byte(sb.String()))
		urls := []string{"/catalog/00007/public/a.html", "/catalog/00008/x", "/about/team", fmt.Sprintf("/catalog/%05d/y", (n-1)*7)}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				_ = p.Check(benchAgent, urls[i%len(urls)])
			}
		})
	}
}

// Pathological wildcards: 200 '*' against a 4 KB URL stay polynomial.
func BenchmarkCheckPathological(b *testing.B) {
	robots := []byte("User-agent: *\nDisallow: /" + strings.Repeat("*a", 200) + "b\nDisallow: /" + strings.Repeat("*", 200) + "$\n")
	url := "/" + strings.Repeat("a", 4096)
	p := ParsePolicy(robots)
	b.Run("robotsext", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = p.Check(benchAgent, url)
		}
	})
	t, err := temoto.FromBytes(robots)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("temoto", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = t.TestAgent(url, benchAgent)
		}
	})
}

// worstCaseInputs are the hostile shapes whose parse must stay bounded: one
// group filling 500 KiB, one 500 KiB line, 50,000 rules, and 100,000
// user-agent lines.
func worstCaseInputs() []benchInput {
	var group, rules, agents strings.Builder
	group.WriteString("User-agent: *\n")
	for i := 0; group.Len() < 500<<10; i++ {
		if i%8 == 0 {
			fmt.Fprintf(&group, "Disallow: /*/print%d/*.html$\n", i)
		} else {
			fmt.Fprintf(&group, "Disallow: /catalog/%d/item-%d/\n", i%97, i)
		}
	}
	rules.WriteString("User-agent: *\n")
	for i := range 50_000 {
		fmt.Fprintf(&rules, "Disallow: /p%d/*q%d\nAllow: /p%d/\n", i, i, i)
	}
	for i := range 100_000 {
		fmt.Fprintf(&agents, "User-agent: bot%s\n", letters(i))
	}
	agents.WriteString("Disallow: /x\n")
	urls := []string{"/", "/catalog/5/item-100/x", "/a/print8/b.html", "/p49999/aq49999", "/p123/z", "/x"}
	return []benchInput{
		{"group500KiB", []byte(group.String()), urls},
		{"line500KiB", []byte("User-agent: *\nDisallow: /" + strings.Repeat("a", 500<<10)), urls},
		{"rules50k", []byte(rules.String()), urls},
		{"agents100k", []byte(agents.String()), urls},
	}
}

// The worst cases may not get slower than before (issue 12).
func BenchmarkParseWorstCase(b *testing.B) {
	for _, in := range worstCaseInputs() {
		benchParse(b, in.name, [][]byte{in.robots})
	}
}

func BenchmarkCheckWorstCase(b *testing.B) {
	for _, in := range worstCaseInputs() {
		benchCheck(b, in.name, []benchInput{in})
	}
}

// hostileLengths are the URL lengths the hostile files are asked about.
var hostileLengths = []int{118, 2 << 10, 8 << 10}

// hostileURL is "/abab…" of n octets.
func hostileURL(n int) string {
	return "/" + strings.Repeat("ab", n/2)[:n-1]
}

// hostileRobots returns a file of one "*" group of about 500 KiB in one of
// three shapes, built the same way on every run:
//
//   - wild: 12,669 distinct rules "/*a*b*…*aa", a run of 12 to 14
//     single-octet pieces a and b (the binary digits of the rule's
//     number) and a final "aa". No rule matches "/abab…" (it holds no
//     "aa"), so a plain matcher tries every rule against the whole URL.
//   - literal: the same rules without their '*' ("/abab…aa"): the file's
//     non-hostile equivalent, as many rules of the same lengths.
//   - ordered: rules of single-octet pieces a and b only, every one of them
//     in the URL, in orders that need more of the URL than the n octets it
//     has: each rule fails only at its end. Rules are about n/2 pieces
//     long, so fewer fit in 500 KiB as n grows. This shape passes every
//     filter a rule's octets or pieces allow; only matching rejects it.
func hostileRobots(shape string, n int) []byte {
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	switch shape {
	case "wild", "literal":
		star := "*"
		if shape == "literal" {
			star = ""
		}
		for i := 0; b.Len() < 500<<10; i++ {
			v := i + 1<<12 // 12 or more binary digits below the leading one
			b.WriteString("Disallow: /")
			for bit := bits.Len(uint(v)) - 2; bit >= 0; bit-- {
				b.WriteString(star)
				b.WriteByte("ab"[v>>bit&1])
			}
			b.WriteString(star + "aa\n")
		}
	case "ordered":
		// After a piece found at an a, the next piece b costs one octet
		// and a costs two (the next a is two octets on); likewise after
		// a b. A rule fails once its cost passes the n-1 octets after
		// the '/'. x is a xorshift generator with a fixed seed.
		x := uint64(0x9E3779B97F4A7C15)
		for b.Len() < 500<<10 {
			b.WriteString("Disallow: /")
			cost, prev := 0, byte('b') // the '/' is followed by an a
			for cost < n {
				x ^= x << 13
				x ^= x >> 7
				x ^= x << 17
				c := "ab"[x&1]
				if c == prev {
					cost += 2
				} else {
					cost++
				}
				prev = c
				b.WriteByte('*')
				b.WriteByte(c)
			}
			b.WriteByte('\n')
		}
	}
	return []byte(b.String())
}

// Hostile wildcard files (issue 22): a check of "/abab…" of 118, 2,048
// and 8,192 octets against each shape of hostileRobots. Compare wild with
// its non-hostile equivalent, literal, and with BenchmarkCheckWorstCase's
// group500KiB.
func BenchmarkCheckHostile(b *testing.B) {
	for _, shape := range []string{"wild", "literal", "ordered"} {
		for _, n := range hostileLengths {
			p := ParsePolicy(hostileRobots(shape, n))
			url := hostileURL(n)
			if v := p.Check(benchAgent, url); !v.Allowed || v.Reason != ReasonNoMatch {
				b.Fatalf("%s: Check(/abab… of %d) = %+v; want no match", shape, n, v)
			}
			b.Run(fmt.Sprintf("%s/%d", shape, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					_ = p.Check(benchAgent, url)
				}
			})
		}
	}
}

// scanAlphabet is the octets of the scan shape's pieces.
const scanAlphabet = "bcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// BenchmarkCheckHostileScan is the shape no filter rejects and every rule
// of which reads the whole URL: a 500 KiB "*" group of 28,444 rules
// "/*x*y*z" of single-octet pieces (no bigrams to filter by), x after y in
// scanAlphabet, against "/aaa…" followed by the alphabet once, n octets in
// all. Each rule finds x near the URL's end and fails to find y after it,
// so a check costs about rules × URL length: the bound docs/benchmarks.md
// gives, measured.
func BenchmarkCheckHostileScan(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("User-agent: *\n")
	a := scanAlphabet
	for i := 0; i < len(a) && sb.Len() < 500<<10; i++ {
		for j := 0; j < i && sb.Len() < 500<<10; j++ {
			for k := 0; k < len(a) && sb.Len() < 500<<10; k++ {
				fmt.Fprintf(&sb, "Disallow: /*%c*%c*%c\n", a[i], a[j], a[k])
			}
		}
	}
	p := ParsePolicy([]byte(sb.String()))
	for _, n := range hostileLengths {
		url := "/" + strings.Repeat("a", n-1-len(a)) + a
		if v := p.Check(benchAgent, url); !v.Allowed || v.Reason != ReasonNoMatch {
			b.Fatalf("Check(/aaa… of %d) = %+v; want no match", n, v)
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = p.Check(benchAgent, url)
			}
		})
	}
}
