// Command robotscheck answers "may this crawler fetch this URL, and why?"
// with the robots.txt decisions robotsext makes for a Colly collector.
//
// Usage:
//
//	robotscheck [flags] URL...                    fetch each origin's robots.txt
//	robotscheck [flags] -robots FILE URL|PATH...  check against a local file
//	robotscheck [flags] [-robots FILE] < urls.txt read the URLs from stdin
//
// Without -robots, the robots.txt of each URL's origin is fetched once, with
// the request rules, limits and outcome table of the extension (see
// robotsext.FetchRobots): 4xx allows everything, 5xx, 429 and network errors
// follow -fail. With -robots FILE nothing is fetched and URLs may be bare
// paths such as /shop/cart?id=1. With no URL arguments, or with "-" among
// them, URLs are read from standard input, one per line; blank lines and
// lines starting with '#' are skipped. The file is parsed once, so large
// lists are cheap. Started with no URL arguments on a terminal, it prints
// its usage rather than wait for URLs typed by hand (give "-" to type them
// anyway); given no URL at all (an empty standard input), it says so and
// exits 2.
//
// For each robots.txt the output starts with a header: where it came from
// (URL, HTTP status, outcome), the group chosen for the user agent (the line
// numbers of its user-agent records), its Crawl-delay (or, when it states
// none, the default pace robotsext gives the host) and its sitemaps. Then
// comes one line per URL: ALLOWED or DISALLOWED, the URL, the reason, and
// the deciding line with its text, as in
//
//	DISALLOWED https://example.com/private/a  disallowed by rule, line 7: Disallow: /private
//
// Header lines start with '#', so `grep -v '^#'` keeps only the verdicts.
//
// With -json the output is one JSON object per URL instead, each complete
// in itself: url, allowed, reason, line (0: no rule decided), rule,
// line_text, group_lines, group_specific (the groups name the
// agent rather than "*"), crawl_delay (seconds, null when none), sitemaps,
// and robots_file for a local file or robots_url, final_url (after
// redirects), status (absent when there was no HTTP answer), outcome (ok,
// unavailable, unreachable, unauthorized) and fetch_error for a fetch. A URL
// that could not be checked gets {"url": ..., "error": ...}.
//
// Flags:
//
//	-ua TOKEN      product token the rules are checked for, such as FooBot
//	               (letters, '-' and '_'); also sent as the User-Agent of
//	               fetches. The default, "robotscheck", is a token no
//	               robots.txt is expected to name, so the "*" group answers.
//	-robots FILE   check against FILE instead of fetching
//	-fail MODE     what an unreachable robots.txt means: closed (disallow
//	               everything, RFC 9309, the default) or open (allow)
//	-unauthorized MODE
//	               what a 401 or 403 robots.txt means: allow (RFC 9309, the
//	               default) or disallow
//	-timeout D     bound on one robots.txt fetch, redirects included
//	               (default 10s)
//	-json          one JSON object per URL
//	-page          also fetch each allowed URL as a collector would, at the
//	               host's pace, and show what its headers and head say to
//	               the agent: its directives, its AI usage preferences and
//	               its TDM reservation; with -purpose, a page a collector
//	               aborts at its headers is reported disallowed
//	-purpose LIST  decide as a collector with WithPurpose (keys such as
//	               train-ai, comma-separated): also read each origin's
//	               tdmrep.json, and report a URL the site's usage
//	               preferences refuse for every purpose as disallowed
//
// Flags come before the URLs. The exit status is 0 when every URL is
// allowed, 1 when at least one is disallowed, and 2 on a usage error, an
// unreadable file, an invalid URL or a robots.txt that gave no HTTP answer
// at all (DNS, connection or TLS failure, timeout); every such problem is
// reported on one line of standard error, and the other URLs are still
// checked.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/robotsext/robotsext"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, isTerminal(os.Stdin), os.Stdout, os.Stderr))
}

// isTerminal reports whether f is a terminal: a character device other
// than the null device (where "< /dev/null" is an empty input, not
// someone about to type URLs).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(fi, null)
}

// Exit statuses.
const (
	exitAllowed    = 0
	exitDisallowed = 1
	exitError      = 2
)

// defaultAgent is the -ua default: a token no robots.txt is expected to
// name, so that the "*" group decides.
const defaultAgent = "robotscheck"

// run is the whole command: it parses args, checks every URL and returns
// the exit status. It writes results to stdout and problems to stderr.
// stdinTerminal reports that stdin is a terminal: then, with no URL
// arguments, run prints its usage instead of reading stdin.
func run(args []string, stdin io.Reader, stdinTerminal bool, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("robotscheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	ua := fs.String("ua", defaultAgent, "product `token` the rules are checked for, such as FooBot")
	robotsFile := fs.String("robots", "", "check against this robots.txt `file` instead of fetching")
	failFlag := fs.String("fail", "closed", "what an unreachable robots.txt means: closed (disallow all) or open (allow all)")
	authFlag := fs.String("unauthorized", "allow", "what a 401/403 robots.txt means: allow (RFC 9309) or disallow")
	timeout := fs.Duration("timeout", 0, "bound on one robots.txt fetch, redirects included (0: 10s)")
	asJSON := fs.Bool("json", false, "print one JSON object per URL")
	page := fs.Bool("page", false, "also fetch each allowed URL and show what its headers and head say to the agent: directives, usage preferences, TDM reservation")
	purposeFlag := fs.String("purpose", "", "decide as a collector declaring these `purposes` (comma-separated keys, such as train-ai): read tdmrep.json too, refuse what the usage preferences refuse")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: robotscheck [flags] URL...\n"+
			"       robotscheck [flags] -robots FILE URL|PATH...\n"+
			"       robotscheck [flags] [-robots FILE] < urls\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitAllowed
		}
		return exitError // the flag package has printed the problem and the usage
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "robotscheck: "+format+"\n", a...)
		return exitError
	}
	if !isToken(*ua) {
		return usageErr("-ua %q: want a product token of letters, '-' and '_', such as FooBot", *ua)
	}
	var mode robotsext.FailMode
	switch *failFlag {
	case "closed":
		mode = robotsext.FailClosed
	case "open":
		mode = robotsext.FailOpen
	default:
		return usageErr("-fail %q: want closed or open", *failFlag)
	}
	if *timeout < 0 {
		return usageErr("-timeout %v: want a positive duration", *timeout)
	}
	opts := []robotsext.Option{robotsext.WithUserAgent(*ua), robotsext.WithTimeout(*timeout)}
	switch *authFlag {
	case "allow":
	case "disallow":
		opts = append(opts, robotsext.WithUnauthorizedDisallowAll())
	default:
		return usageErr("-unauthorized %q: want allow or disallow", *authFlag)
	}
	targets := fs.Args()
	for _, t := range targets {
		if t != "-" && strings.HasPrefix(t, "-") {
			return usageErr("%s: flags must come before the URLs", t)
		}
	}
	if len(targets) == 0 && stdinTerminal {
		fs.Usage()
		return usageErr("no URLs: give them as arguments, or one per line on standard input (\"-\" reads a terminal)")
	}

	var purposes []robotsext.Purpose
	if *purposeFlag != "" {
		for _, p := range strings.Split(*purposeFlag, ",") {
			if p = strings.TrimSpace(p); !isKey(p) {
				return usageErr("-purpose %q: want keys such as train-ai, search or ai-input, comma-separated", *purposeFlag)
			}
			purposes = append(purposes, robotsext.Purpose(p))
		}
	}

	out := newPrinter(stdout, stderr, *ua, mode, *asJSON)
	c := &checker{ua: *ua, mode: mode, opts: opts, out: out, origins: map[string]*source{}, page: *page, timeout: *timeout, purposes: purposes}
	if *robotsFile != "" && *page {
		return usageErr("-page fetches pages: it cannot be used with -robots")
	}
	if *robotsFile != "" && purposes != nil {
		return usageErr("-purpose reads each origin's tdmrep.json: it cannot be used with -robots")
	}
	switch {
	case *page: // the pages are fetched through a collector with the Extension applied
		c.pager = newPager(*ua, *timeout, extOptions(opts, mode, purposes))
		c.ext = c.pager.ext
	case purposes != nil:
		c.ext = robotsext.Apply(nil, extOptions(opts, mode, purposes)...)
	}
	if *robotsFile != "" {
		src, err := loadFile(*robotsFile, *ua)
		if err != nil {
			return usageErr("%v", err)
		}
		if n := src.robots.Size; n > robotsext.MaxBodySize {
			out.warn("warning: %s is %d bytes; crawlers read only the first %d", *robotsFile, n, robotsext.MaxBodySize)
		}
		if src.robots.Policy.Empty() && src.robots.Size > 0 {
			out.warn("warning: %s has no robots.txt line that parses (no User-agent group, no Sitemap), so it allows everything: is it a robots.txt file?", *robotsFile)
		}
		c.local = src
	}

	if len(targets) == 0 {
		targets = []string{"-"}
	}
	for _, t := range targets {
		if t == "-" {
			c.checkLines(stdin)
		} else {
			c.check(t)
		}
	}
	if err := out.flush(); err != nil {
		fmt.Fprintf(stderr, "robotscheck: writing output: %v\n", err)
		return exitError
	}
	if c.checked == 0 && c.status != exitError { // a read error was reported already
		return usageErr("no URLs to check: standard input held none (give URLs as arguments, or one per line on standard input)")
	}
	return c.status
}

// isToken reports whether s is a product token: one or more letters, '-'
// and '_' (RFC 9309 §2.2.1).
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '-' || c == '_') {
			return false
		}
	}
	return s != ""
}

// isKey reports whether s may be a usage preference key: a Structured
// Field key (RFC 9651 §3.2), lower-case letters, digits, '_', '-', '.'
// and '*', starting with a letter or '*'.
func isKey(s string) bool {
	if s == "" || !('a' <= s[0] && s[0] <= 'z' || s[0] == '*') {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("_-.*", c) >= 0) {
			return false
		}
	}
	return true
}

// checker checks URLs one after the other, fetching each origin's
// robots.txt the first time a URL of it comes up. It is not safe for
// concurrent use.
type checker struct {
	ua   string
	mode robotsext.FailMode
	opts []robotsext.Option
	out  *printer

	page     bool                // -page: fetch allowed URLs and read their directives
	timeout  time.Duration       // -timeout
	purposes []robotsext.Purpose // -purpose
	// ext decides as a collector would, for -purpose (robots.txt with
	// tdmrep.json) and -page (Page); nil without either. With -page it
	// is pager's, applied to the collector that fetches the pages.
	ext   *robotsext.Extension
	pager *pager

	local   *source            // the -robots file; nil when fetching
	origins map[string]*source // fetched robots.txt by robots.txt URL

	status  int // exit status so far: the worst seen
	checked int // URLs checked or reported, so that an empty list is an error
}

// worsen raises the exit status to s if it is worse.
func (c *checker) worsen(s int) { c.status = max(c.status, s) }

// checkLines checks every URL of r, one per line.
func (c *checker) checkLines(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		c.check(line)
	}
	if err := sc.Err(); err != nil {
		c.out.warn("reading URLs: %v", err)
		c.worsen(exitError)
	}
}

// check decides one URL and prints the result.
func (c *checker) check(raw string) {
	c.checked++
	fail := func(err error) {
		c.out.urlError(raw, err)
		c.worsen(exitError)
	}
	u, err := url.Parse(raw)
	if err != nil {
		fail(fmt.Errorf("invalid URL: %v", cause(err)))
		return
	}
	if u.Scheme != "" && !strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https") {
		fail(errors.New("not an http or https URL: robots.txt does not govern it"))
		return
	}
	src := c.local
	if src == nil {
		if u.Scheme == "" || u.Host == "" {
			fail(errors.New("not an absolute http(s) URL; give one, or check paths against a file with -robots"))
			return
		}
		if src, err = c.fetch(raw); err != nil {
			fail(err)
			return
		}
	} else if u.Scheme == "" && u.Host == "" && !strings.HasPrefix(raw, "/") {
		fail(errors.New("want an absolute http(s) URL or a path starting with '/'"))
		return
	}
	v := src.robots.Verdict(c.ua, raw, c.mode)
	if c.purposes != nil && v.Allowed {
		v = c.withPurposes(raw, v)
	}
	var pr *pageResult
	var perr error
	if c.page && v.Allowed {
		var refused *robotsext.Verdict
		pr, refused, perr = c.pager.fetch(raw)
		if refused != nil {
			v = *refused // the collector refuses the page, at its headers: so does the report
		}
		if perr != nil {
			c.worsen(exitError)
		}
	}
	if !v.Allowed {
		c.worsen(exitDisallowed)
	}
	c.out.result(src, raw, v, pr, perr)
}

// fetch returns the robots.txt governing raw, fetching it on first use.
func (c *checker) fetch(raw string) (*source, error) {
	key, err := robotsext.RobotsURL(raw)
	if err != nil {
		return nil, err
	}
	if src, ok := c.origins[key]; ok {
		return src, nil
	}
	r, err := robotsext.FetchRobots(context.Background(), raw, c.opts...)
	if err != nil {
		return nil, err // the URL has no robots.txt; nothing was fetched
	}
	src := newSource(r.URL, r, r.Body, c.ua)
	c.origins[key] = src
	if noAnswer(r) {
		// The outcome table still decides (see -fail), but the check
		// itself did not work: say so once per origin, and exit 2.
		c.out.warn("%s: no answer: %v (URLs checked %v)", r.URL, cause(r.Err), c.mode)
		c.worsen(exitError)
	}
	if r.Truncated {
		c.out.warn("warning: %s is longer than %d bytes; the rest is ignored", r.URL, robotsext.MaxBodySize)
	}
	return src, nil
}

// noAnswer reports an unreachable robots.txt whose origin gave no HTTP
// answer to go by: a DNS, connection or TLS failure, a timeout, a body cut
// short. 5xx and 429 are answers.
func noAnswer(r *robotsext.Robots) bool {
	return r.Outcome == robotsext.OutcomeUnreachable &&
		r.Status != http.StatusTooManyRequests && r.Status < 500
}

// cause strips the request description net/http wraps around a
// network error; the robots.txt URL is printed anyway.
func cause(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// source is one robots.txt URLs are checked against, with what every check
// against it repeats, worked out once.
type source struct {
	name   string // robots.txt URL, or the file's path
	robots *robotsext.Robots
	local  bool   // a -robots file, not a fetch
	body   []byte // the file's bytes, when local

	groupLines []int // user-agent lines of the groups chosen for the agent
	specific   bool  // the groups name the agent (else "*" or none)
	delay      time.Duration
	hasDelay   bool
	sitemaps   []string

	lines  []span // line spans of body, built on first use (see lineText)
	headed bool   // the text header has been printed
}

// loadFile reads and parses a local robots.txt.
func loadFile(path, ua string) (*source, error) {
	body, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading robots.txt: %w", err)
	}
	// A file read is an OK answer: Robots.Verdict then decides exactly
	// as for a fetched file.
	r := &robotsext.Robots{Outcome: robotsext.OutcomeOK, Policy: robotsext.ParsePolicy(body), Size: len(body)}
	src := newSource(path, r, body, ua)
	src.local = true
	return src, nil
}

func newSource(name string, r *robotsext.Robots, body []byte, ua string) *source {
	s := &source{name: name, robots: r, body: body}
	if p := r.Policy; p != nil {
		s.groupLines, s.specific = p.Groups(ua)
		s.delay, s.hasDelay = p.CrawlDelay(ua)
		s.sitemaps = p.Sitemaps()
	}
	return s
}
