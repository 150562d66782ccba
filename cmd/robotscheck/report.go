package main

// This file prints: the text header and lines, the JSON objects, and the
// messages on standard error.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/robotsext/robotsext"
	"github.com/robotsext/robotsext/internal/redact"
	"github.com/robotsext/robotsext/internal/termsafe"
)

// printer writes results to stdout through a buffer and problems to
// stderr, flushing the buffer first so that the two read in order on a
// terminal.
type printer struct {
	w      *bufio.Writer
	stderr io.Writer
	enc    *json.Encoder // nil for text output
	ua     string
	mode   robotsext.FailMode
	heads  int // text headers printed
}

func newPrinter(stdout, stderr io.Writer, ua string, mode robotsext.FailMode, asJSON bool) *printer {
	p := &printer{w: bufio.NewWriterSize(stdout, 64<<10), stderr: stderr, ua: ua, mode: mode}
	if asJSON {
		p.enc = json.NewEncoder(jsonSafe{p.w})
		p.enc.SetEscapeHTML(false)
	}
	return p
}

func (p *printer) flush() error { return p.w.Flush() }

// warn prints one line on stderr.
func (p *printer) warn(format string, a ...any) {
	p.w.Flush() // a write error is reported by the final flush
	fmt.Fprintf(p.stderr, "robotscheck: %s\n", printable(fmt.Sprintf(format, a...)))
}

// urlError reports a URL that could not be checked: on stderr, and in the
// JSON stream too, so that it keeps one object per URL.
func (p *printer) urlError(raw string, err error) {
	shown, msg := redact.RawURL(raw), redact.In(err.Error(), raw)
	if p.enc != nil {
		p.enc.Encode(struct {
			URL   string `json:"url"`
			Error string `json:"error"`
		}{shown, msg})
	}
	p.warn("%s: %s", shown, msg)
}

// result is the JSON object printed for each URL checked.
type result struct {
	URL     string `json:"url"`
	Allowed bool   `json:"allowed"`
	Reason  string `json:"reason"` // Verdict.Reason.String()
	// Line is the deciding line (0: none); Rule its pattern as written;
	// LineText the whole line.
	Line     int    `json:"line"`
	Rule     string `json:"rule"`
	LineText string `json:"line_text,omitempty"`
	// GroupLines are the user-agent lines of the groups chosen;
	// GroupSpecific reports that they name the agent rather than "*".
	GroupLines    []int    `json:"group_lines"`
	GroupSpecific bool     `json:"group_specific"`
	CrawlDelay    *float64 `json:"crawl_delay"` // seconds; null when none
	Sitemaps      []string `json:"sitemaps"`
	// RobotsFile is the -robots file; the rest describe a fetch.
	RobotsFile string `json:"robots_file,omitempty"`
	RobotsURL  string `json:"robots_url,omitempty"`
	FinalURL   string `json:"final_url,omitempty"` // after redirects, when they changed it
	Status     int    `json:"status,omitempty"`    // 0: no HTTP answer
	Outcome    string `json:"outcome,omitempty"`
	FetchError string `json:"fetch_error,omitempty"`
	// Usage lists the AI usage preferences in force for an allowed URL
	// (robots.txt's Content-Usage and Content-Signal lines, and with
	// -purpose the origin's tdmrep.json), by key: the most restrictive
	// of the mechanisms' statements. UsageStatements lists every
	// mechanism's, when some is overruled.
	Usage           []usageResult `json:"usage,omitempty"`
	UsageStatements []usageResult `json:"usage_statements,omitempty"`
	// Page is what -page found on the page; PageError why it could not
	// be had.
	Page      *pageResult `json:"page,omitempty"`
	PageError string      `json:"page_error,omitempty"`
}

// usageResult is one statement of Verdict.Usage.
type usageResult struct {
	Key        string `json:"key"`
	Preference string `json:"preference"` // "y", "n" or "no statement"
	Source     string `json:"source"`
	Line       int    `json:"line"`
}

// result prints the verdict v on the URL raw, checked against src.
func (p *printer) result(src *source, raw string, v robotsext.Verdict, page *pageResult, pageErr error) {
	var text string
	if v.Line > 0 {
		text = src.lineText(v.Line)
	}
	if p.enc != nil {
		res := p.jsonResult(src, raw, v, text)
		res.Page = page
		if pageErr != nil {
			res.PageError = pageErr.Error()
		}
		p.enc.Encode(res)
		return
	}
	if !src.headed {
		p.header(src)
		src.headed = true
	}
	word := "ALLOWED   "
	if !v.Allowed {
		word = "DISALLOWED"
	}
	fmt.Fprintf(p.w, "%s %s  %s", word, printable(redact.RawURL(raw)), v.Reason)
	switch {
	case v.Line == 0 && v.Rule != "" && v.Reason == robotsext.ReasonUsage:
		fmt.Fprintf(p.w, ": %s", printable(v.Rule)) // a header, tdmrep.json, a meta tag
	case v.Line == 0:
	case text != "":
		fmt.Fprintf(p.w, ", line %d: %s", v.Line, printable(text))
	case v.Rule != "":
		fmt.Fprintf(p.w, ", line %d, rule %s", v.Line, printable(v.Rule))
	default:
		fmt.Fprintf(p.w, ", line %d", v.Line)
	}
	if !v.Usage.IsZero() {
		fmt.Fprintf(p.w, "; usage: %s", printable(usageText(v.Usage)))
	}
	p.w.WriteByte('\n')
	switch {
	case pageErr != nil:
		fmt.Fprintf(p.w, "           page: not fetched: %s\n", printable(pageErr.Error()))
	case page != nil:
		fmt.Fprintf(p.w, "           page: HTTP %d; directives for %s: %s", page.Status, p.ua, printable(page.Directives))
		if page.NofollowRule != "" {
			fmt.Fprintf(p.w, " (links refused by a collector: %s)", printable(page.NofollowRule))
		}
		p.w.WriteByte('\n')
		if page.UsageText != "" {
			fmt.Fprintf(p.w, "           page usage: %s", printable(page.UsageText))
			switch {
			case page.AbortedAtHeaders:
				p.w.WriteString(" (refused for every purpose: a collector aborts the page at its headers)")
			case page.Refused:
				p.w.WriteString(" (refused for every purpose: its links are refused)")
			}
			p.w.WriteByte('\n')
		}
		if t := page.TDMRep; t != nil {
			fmt.Fprintf(p.w, "           page tdm-reservation: %s (%s)", t.Reservation, t.Source)
			if t.Policy != "" {
				fmt.Fprintf(p.w, ", tdm-policy %s", printable(t.Policy))
			}
			p.w.WriteByte('\n')
		}
	}
}

// usageText is the usage preferences in force, and, when some mechanism's
// statement is overruled by another's, every statement: "train-ai=n
// (Content-Signal line 3) (every statement: train-ai=y (Content-Usage
// line 4), train-ai=n (Content-Signal line 3))".
func usageText(u robotsext.Usage) string {
	in, all := u.Statements(), u.All()
	if len(all) == len(in) {
		return u.String()
	}
	var b strings.Builder
	b.WriteString(u.String())
	b.WriteString(" (every statement: ")
	for i, s := range all {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s.String())
	}
	b.WriteByte(')')
	return b.String()
}

// usageResults is a Usage's statements for JSON.
func usageResults(stmts []robotsext.UsageStatement) []usageResult {
	var out []usageResult
	for _, u := range stmts {
		out = append(out, usageResult{Key: u.Key, Preference: u.Preference.String(), Source: u.Source.String(), Line: u.Line})
	}
	return out
}

func (p *printer) jsonResult(src *source, raw string, v robotsext.Verdict, text string) result {
	res := result{
		URL: redact.RawURL(raw), Allowed: v.Allowed, Reason: v.Reason.String(),
		Line: v.Line, Rule: v.Rule, LineText: text,
		GroupLines: src.groupLines, GroupSpecific: src.specific, Sitemaps: src.sitemaps,
	}
	if res.GroupLines == nil {
		res.GroupLines = []int{}
	}
	res.Usage = usageResults(v.Usage.Statements())
	if all := v.Usage.All(); len(all) != len(res.Usage) {
		res.UsageStatements = usageResults(all)
	}
	if res.Sitemaps == nil {
		res.Sitemaps = []string{}
	}
	if src.hasDelay {
		s := src.delay.Seconds()
		res.CrawlDelay = &s
	}
	r := src.robots
	if src.local {
		res.RobotsFile = src.name
		return res
	}
	res.RobotsURL, res.Status, res.Outcome = r.URL, r.Status, r.Outcome.String()
	if r.FinalURL != r.URL {
		res.FinalURL = r.FinalURL
	}
	if r.Err != nil {
		res.FetchError = cause(r.Err).Error()
	}
	return res
}

// header prints what src is and what it says for the agent as a whole,
// each line starting with '#' so that `grep -v '^#'` keeps the verdicts.
func (p *printer) header(src *source) {
	if p.heads > 0 {
		p.w.WriteByte('\n')
	}
	p.heads++
	r := src.robots
	if src.local {
		fmt.Fprintf(p.w, "# robots.txt: %s (local file, %d bytes)\n", printable(src.name), r.Size)
	} else {
		fmt.Fprintf(p.w, "# robots.txt: %s", printable(r.URL))
		if r.Redirects > 0 {
			fmt.Fprintf(p.w, " -> %s (%s)", printable(r.FinalURL), plural(r.Redirects, "redirect"))
		}
		p.w.WriteString(": ")
		if r.Status != 0 {
			fmt.Fprintf(p.w, "HTTP %d, ", r.Status)
		}
		p.w.WriteString(r.Outcome.String())
		if r.Err != nil && r.Status < 500 && r.Status != 429 { // else Err only repeats the status
			fmt.Fprintf(p.w, " (%s)", printable(cause(r.Err).Error()))
		}
		if r.Outcome == robotsext.OutcomeUnreachable {
			fmt.Fprintf(p.w, ", checked %v", p.mode)
		}
		p.w.WriteByte('\n')
	}
	if r.Policy == nil {
		return
	}
	fmt.Fprintf(p.w, "# group for %s: ", p.ua)
	switch lines := src.groupLines; {
	case len(lines) == 0:
		fmt.Fprintf(p.w, "none (no group names %s and there is no \"*\" group)\n", p.ua)
	case src.specific:
		fmt.Fprintf(p.w, "user-agent %s (names %s)\n", lineList(lines), p.ua)
	default:
		fmt.Fprintf(p.w, "user-agent %s (the \"*\" group; none names %s)\n", lineList(lines), p.ua)
	}
	switch {
	case src.hasDelay && src.delay == 0:
		fmt.Fprintf(p.w, "# crawl-delay for %s: 0s (stated: robotsext adds no pace)\n", p.ua)
	case src.hasDelay:
		fmt.Fprintf(p.w, "# crawl-delay for %s: %v\n", p.ua, src.delay)
	default:
		fmt.Fprintf(p.w, "# crawl-delay for %s: none (robotsext paces the host by its default pace, %v between requests; WithDefaultDelay)\n",
			p.ua, robotsext.DefaultDelay)
	}
	if len(src.sitemaps) == 0 {
		p.w.WriteString("# sitemaps: none\n")
	}
	for _, s := range src.sitemaps {
		fmt.Fprintf(p.w, "# sitemap: %s\n", printable(s))
	}
}

// lineList formats line numbers: "line 3", "lines 3, 9".
func lineList(lines []int) string {
	var b strings.Builder
	b.WriteString("line")
	if len(lines) > 1 {
		b.WriteByte('s')
	}
	for i, n := range lines {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(n))
	}
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// printable returns s with every character that could drive a terminal
// escaped (control and format characters, invalid UTF-8; see
// internal/termsafe), so that text from a site reaches the terminal as text.
func printable(s string) string { return termsafe.Line(s) }

// jsonSafe writes each JSON value a json.Encoder hands it with the
// characters encoding/json leaves raw (DEL, C1 controls, format characters
// such as U+202E) escaped as \uHHHH: the decoded values are unchanged.
type jsonSafe struct{ w io.Writer }

func (j jsonSafe) Write(b []byte) (int, error) {
	if _, err := j.w.Write(termsafe.JSON(b)); err != nil {
		return 0, err
	}
	return len(b), nil
}

// span is the half-open byte range [start, end) of one line.
type span struct{ start, end int }

// lineText returns line n (1-based) of the robots.txt body, without white
// space around it, or "" when the body is not at hand. Lines are numbered as
// robotsext.ParsePolicy numbers them: after a byte order mark, each ended
// by CR, LF or CRLF.
func (s *source) lineText(n int) string {
	if s.body == nil {
		return ""
	}
	if s.lines == nil {
		s.lines = splitLines(s.body)
	}
	if n < 1 || n > len(s.lines) {
		return ""
	}
	sp := s.lines[n-1]
	return strings.TrimSpace(string(s.body[sp.start:sp.end]))
}

func splitLines(body []byte) []span {
	const bom = "\xEF\xBB\xBF"
	i := 0
	for i < len(body) && i < len(bom) && body[i] == bom[i] {
		i++
	}
	var lines []span
	start, lastCR := i, false
	for j := i; j < len(body); j++ {
		c := body[j]
		if c != '\n' && c != '\r' {
			continue
		}
		if !(j == start && lastCR && c == '\n') { // the LF of a CRLF
			lines = append(lines, span{start, j})
		}
		start, lastCR = j+1, c == '\r'
	}
	return append(lines, span{start, len(body)})
}
