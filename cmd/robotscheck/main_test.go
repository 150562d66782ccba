package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/robotsext/robotsext"
)

// robotsTxt is the file most tests check against. Line numbers matter.
const robotsTxt = `User-agent: *
Disallow: /private  # not for you
Allow: /private/ok
Crawl-delay: 2

User-agent: FooBot
User-agent: BarBot
Disallow: /foo
Disallow:

Sitemap: https://example.com/sitemap.xml
`

// runCmd runs the command in-process, standard input not a terminal.
func runCmd(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(stdin), false, &out, &errb)
	return out.String(), errb.String(), code
}

// fetchError returns the fetch_error robotscheck reports for the
// robots.txt governing rawURL: the library's words, not the test's.
func fetchError(t *testing.T, rawURL string) string {
	t.Helper()
	r, err := robotsext.FetchRobots(context.Background(), rawURL)
	if err != nil {
		t.Fatalf("FetchRobots(%s): %v", rawURL, err)
	}
	if r.Err == nil {
		t.Fatalf("FetchRobots(%s): no fetch error", rawURL)
	}
	return cause(r.Err).Error()
}

// writeFile writes body to a fresh temporary file and returns its path.
func writeFile(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "robots.txt")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// origin is a test web site whose robots.txt answers with status and body,
// counting the requests and keeping the last User-Agent header.
type origin struct {
	*httptest.Server
	hits atomic.Int32
	ua   atomic.Value // string
}

func newOrigin(t *testing.T, status int, body string) *origin {
	t.Helper()
	o := &origin{}
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		o.hits.Add(1)
		o.ua.Store(r.Header.Get("User-Agent"))
		if status/100 == 3 {
			http.Redirect(w, r, "/moved/robots.txt", status)
			return
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	})
	mux.HandleFunc("/moved/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, body)
	})
	o.Server = httptest.NewServer(mux)
	t.Cleanup(o.Close)
	return o
}

// jsonLine is one object of -json output: a result, or an error.
type jsonLine struct {
	result
	Error string `json:"error"`
}

func decodeJSON(t *testing.T, out string) []jsonLine {
	t.Helper()
	var lines []jsonLine
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	for {
		var l jsonLine
		err := dec.Decode(&l)
		if errors.Is(err, io.EOF) {
			return lines
		}
		if err != nil {
			t.Fatalf("decoding -json output: %v\n%s", err, out)
		}
		lines = append(lines, l)
	}
}

// verdictLines returns the lines of text output that are not header lines.
func verdictLines(out string) []string {
	var vs []string
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			vs = append(vs, l)
		}
	}
	return vs
}

func TestLocalFile(t *testing.T) {
	t.Parallel()
	path := writeFile(t, robotsTxt)
	noPace := writeFile(t, "User-agent: *\nCrawl-delay: 0\nDisallow: /private\n")
	tests := []struct {
		name string
		args []string
		code int
		want []string // verdict lines, in order
		head []string // header lines expected somewhere
	}{
		{
			name: "disallowed by the * group",
			args: []string{"-robots", path, "/private/a"},
			code: exitDisallowed,
			want: []string{"DISALLOWED /private/a  disallowed by rule, line 2: Disallow: /private  # not for you"},
			head: []string{
				`# group for robotscheck: user-agent line 1 (the "*" group; none names robotscheck)`,
				"# crawl-delay for robotscheck: 2s",
				"# sitemap: https://example.com/sitemap.xml",
			},
		},
		{
			name: "allow rule, no match, robots.txt itself",
			args: []string{"-robots", path, "/private/ok/x", "/public", "/robots.txt"},
			code: exitAllowed,
			want: []string{
				"ALLOWED    /private/ok/x  allowed by rule, line 3: Allow: /private/ok",
				"ALLOWED    /public  no rule matched",
				"ALLOWED    /robots.txt  /robots.txt is always allowed",
			},
		},
		{
			name: "named agent, case-insensitive, empty rule",
			args: []string{"-ua", "barbot", "-robots", path, "/foo/1", "/private/a"},
			code: exitDisallowed,
			want: []string{
				"DISALLOWED /foo/1  disallowed by rule, line 8: Disallow: /foo",
				"ALLOWED    /private/a  empty rule matched (allows everything), line 9: Disallow:",
			},
			head: []string{"# group for barbot: user-agent line 6 (names barbot)", "# crawl-delay for barbot: none (robotsext paces the host by its default pace, 1s between requests; WithDefaultDelay)"},
		},
		{
			name: "Crawl-delay: 0 stated",
			args: []string{"-robots", noPace, "/a"},
			code: exitAllowed,
			want: []string{"ALLOWED    /a  no rule matched"},
			head: []string{"# crawl-delay for robotscheck: 0s (stated: robotsext adds no pace)"},
		},
		{
			name: "absolute URLs and queries",
			args: []string{"-robots", path, "https://other.example/private?q=1", "http://x.example/p?private"},
			code: exitDisallowed,
			want: []string{
				"DISALLOWED https://other.example/private?q=1  disallowed by rule, line 2: Disallow: /private  # not for you",
				"ALLOWED    http://x.example/p?private  no rule matched",
			},
		},
		{
			name: "header names the file",
			args: []string{"-robots", path, "/"},
			code: exitAllowed,
			want: []string{"ALLOWED    /  no rule matched"},
			head: []string{fmt.Sprintf("# robots.txt: %s (local file, %d bytes)", path, len(robotsTxt))},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, errOut, code := runCmd(t, "", tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tt.code, errOut)
			}
			if errOut != "" {
				t.Errorf("stderr: %q, want nothing", errOut)
			}
			if got := verdictLines(out); strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("verdicts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			for _, h := range tt.head {
				if !strings.Contains(out, h+"\n") {
					t.Errorf("output lacks %q:\n%s", h, out)
				}
			}
		})
	}
}

// TestLineNumbering checks that the text shown is the line the parser
// numbered, whatever the line ends and with a byte order mark.
func TestLineNumbering(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("\xEF\xBB\xBFUser-agent: *\n") // line 1
	ends := []string{"\n", "\r\n", "\r", "\r\n", "\n\r\n", "\r\r", "\n"}
	lines := []int{2, 3, 4, 5, 6, 8, 10} // "\n\r\n" and "\r\r" leave an empty line
	want := map[string]int{}
	for i, end := range ends {
		p := fmt.Sprintf("/p%d", i)
		fmt.Fprintf(&b, "Disallow: %s%s", p, end)
		want[p] = lines[i]
	}
	path := writeFile(t, b.String())
	policy := robotsext.ParsePolicy([]byte(b.String()))
	for p, n := range want {
		if v := policy.Check("x", p); v.Line != n {
			t.Fatalf("test is wrong: parser puts %s on line %d, test expects %d", p, v.Line, n)
		}
		out, _, code := runCmd(t, "", "-robots", path, p+"/x")
		wantLine := fmt.Sprintf("DISALLOWED %s/x  disallowed by rule, line %d: Disallow: %s\n", p, n, p)
		if code != exitDisallowed || !strings.HasSuffix(out, wantLine) {
			t.Errorf("%s: exit %d, output\n%s\nwant it to end with %q", p, code, out, wantLine)
		}
	}
}

func TestFetch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		status  int
		body    string
		args    []string // before the URL
		path    string
		code    int
		verdict string // the verdict line, after the URL
		head    string // a header line, with {srv} for the server URL
	}{
		{
			name: "disallowed", status: 200, body: robotsTxt, path: "/private/a", code: exitDisallowed,
			verdict: "disallowed by rule, line 2: Disallow: /private  # not for you",
			head:    "# robots.txt: {srv}/robots.txt: HTTP 200, ok",
		},
		{
			name: "allowed for a named agent", status: 200, body: robotsTxt, args: []string{"-ua", "FooBot"},
			path: "/private/a", code: exitAllowed, verdict: "empty rule matched (allows everything), line 9: Disallow:",
			head: "# group for FooBot: user-agent line 6 (names FooBot)",
		},
		{
			name: "404 allows everything", status: 404, body: "Disallow: /", path: "/a", code: exitAllowed,
			verdict: robotsext.ReasonUnavailable.String(),
			head:    "# robots.txt: {srv}/robots.txt: HTTP 404, unavailable",
		},
		{
			name: "503 fail closed", status: 503, path: "/a", code: exitDisallowed,
			verdict: "robots.txt unreachable",
			head:    "# robots.txt: {srv}/robots.txt: HTTP 503, unreachable, checked fail-closed",
		},
		{
			name: "503 fail open", status: 503, args: []string{"-fail", "open"}, path: "/a", code: exitAllowed,
			verdict: "robots.txt unreachable",
			head:    "# robots.txt: {srv}/robots.txt: HTTP 503, unreachable, checked fail-open",
		},
		{
			name: "429 fail closed", status: 429, path: "/a", code: exitDisallowed,
			verdict: "robots.txt unreachable",
		},
		{
			name: "403 allows by default", status: 403, path: "/a", code: exitAllowed,
			verdict: robotsext.ReasonUnavailable.String(),
		},
		{
			name: "403 with -unauthorized disallow", status: 403, args: []string{"-unauthorized", "disallow"},
			path: "/a", code: exitDisallowed, verdict: "robots.txt answered 401/403: disallow all",
			head: "# robots.txt: {srv}/robots.txt: HTTP 403, unauthorized",
		},
		{
			name: "redirect followed", status: 301, body: robotsTxt, path: "/private/a", code: exitDisallowed,
			verdict: "disallowed by rule, line 2: Disallow: /private  # not for you",
			head:    "# robots.txt: {srv}/robots.txt -> {srv}/moved/robots.txt (1 redirect): HTTP 200, ok",
		},
		{
			name: "robots.txt itself", status: 503, path: "/robots.txt", code: exitAllowed,
			verdict: "/robots.txt is always allowed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := newOrigin(t, tt.status, tt.body)
			u := o.URL + tt.path
			out, errOut, code := runCmd(t, "", append(tt.args, u)...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tt.code, errOut)
			}
			if errOut != "" {
				t.Errorf("stderr: %q, want nothing", errOut)
			}
			word := "ALLOWED   "
			if tt.code == exitDisallowed {
				word = "DISALLOWED"
			}
			want := []string{word + " " + u + "  " + tt.verdict}
			if got := verdictLines(out); strings.Join(got, "\n") != want[0] {
				t.Errorf("verdicts:\n%s\nwant:\n%s", strings.Join(got, "\n"), want[0])
			}
			if head := strings.ReplaceAll(tt.head, "{srv}", o.URL); !strings.Contains(out, head+"\n") {
				t.Errorf("output lacks %q:\n%s", head, out)
			}
			if got := o.hits.Load(); got != 1 {
				t.Errorf("robots.txt fetched %d times, want 1", got)
			}
			if ua, want := o.ua.Load(), "robotscheck"; len(tt.args) < 2 || tt.args[0] != "-ua" {
				if ua != want {
					t.Errorf("User-Agent %q, want %q", ua, want)
				}
			} else if ua != tt.args[1] {
				t.Errorf("User-Agent %q, want %q", ua, tt.args[1])
			}
		})
	}
}

// TestOneFetchPerOrigin checks URLs of two origins, interleaved: each
// robots.txt is fetched once and each gets one header.
func TestOneFetchPerOrigin(t *testing.T) {
	t.Parallel()
	a := newOrigin(t, 200, "User-agent: *\nDisallow: /a\n")
	b := newOrigin(t, 404, "")
	var args []string
	for i := range 10 {
		args = append(args, fmt.Sprintf("%s/a/%d", a.URL, i), fmt.Sprintf("%s/a/%d", b.URL, i))
	}
	out, errOut, code := runCmd(t, "", args...)
	if code != exitDisallowed || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if a.hits.Load() != 1 || b.hits.Load() != 1 {
		t.Errorf("fetches: %d and %d, want 1 each", a.hits.Load(), b.hits.Load())
	}
	if n := strings.Count(out, "# robots.txt: "); n != 2 {
		t.Errorf("%d headers, want 2:\n%s", n, out)
	}
	vs := verdictLines(out)
	if len(vs) != len(args) {
		t.Fatalf("%d verdicts for %d URLs", len(vs), len(args))
	}
	for i, v := range vs {
		wantWord := "ALLOWED    "
		if i%2 == 0 {
			wantWord = "DISALLOWED "
		}
		if !strings.HasPrefix(v, wantWord+args[i]+" ") {
			t.Errorf("verdict %d: %q, want %s for %s", i, v, wantWord, args[i])
		}
	}
}

// TestNoAnswer checks an origin that does not answer at all: the verdict
// follows -fail, and the run exits 2 with one line on stderr.
func TestNoAnswer(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	dead := srv.URL
	srv.Close()
	for _, tt := range []struct {
		fail, word string
	}{{"closed", "DISALLOWED"}, {"open", "ALLOWED   "}} {
		t.Run(tt.fail, func(t *testing.T) {
			t.Parallel()
			out, errOut, code := runCmd(t, "", "-fail", tt.fail, dead+"/a", dead+"/b")
			if code != exitError {
				t.Errorf("exit %d, want %d", code, exitError)
			}
			if lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n"); len(lines) != 1 ||
				!strings.HasPrefix(lines[0], "robotscheck: "+dead+"/robots.txt: no answer: ") {
				t.Errorf("stderr: %q, want one 'no answer' line", errOut)
			}
			want := tt.word + " " + dead + "/a  robots.txt unreachable\n" + tt.word + " " + dead + "/b  robots.txt unreachable"
			if got := strings.Join(verdictLines(out), "\n"); got != want {
				t.Errorf("verdicts:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// TestBulk checks 10,000 URLs from standard input against a local file,
// as text and as JSON.
func TestBulk(t *testing.T) {
	t.Parallel()
	path := writeFile(t, robotsTxt)
	const n = 10000
	var in strings.Builder
	in.WriteString("# a comment, then a blank line\n\n")
	for i := range n {
		switch i % 3 {
		case 0:
			fmt.Fprintf(&in, "/private/%d\n", i) // disallowed
		case 1:
			fmt.Fprintf(&in, "  https://example.com/private/ok/%d  \r\n", i) // allowed by rule
		default:
			fmt.Fprintf(&in, "/page/%d?x=%d\n", i, i) // no match
		}
	}
	t.Run("text", func(t *testing.T) {
		t.Parallel()
		out, errOut, code := runCmd(t, in.String(), "-robots", path)
		if code != exitDisallowed || errOut != "" {
			t.Fatalf("exit %d, stderr %q", code, errOut)
		}
		vs := verdictLines(out)
		if len(vs) != n {
			t.Fatalf("%d verdicts, want %d", len(vs), n)
		}
		for i, v := range vs {
			var want string
			switch i % 3 {
			case 0:
				want = fmt.Sprintf("DISALLOWED /private/%d  disallowed by rule, line 2: Disallow: /private  # not for you", i)
			case 1:
				want = fmt.Sprintf("ALLOWED    https://example.com/private/ok/%d  allowed by rule, line 3: Allow: /private/ok", i)
			default:
				want = fmt.Sprintf("ALLOWED    /page/%d?x=%d  no rule matched", i, i)
			}
			if v != want {
				t.Fatalf("verdict %d: %q, want %q", i, v, want)
			}
		}
		if h := strings.Count(out, "# robots.txt:"); h != 1 {
			t.Errorf("%d headers, want 1", h)
		}
	})
	t.Run("json", func(t *testing.T) {
		t.Parallel()
		out, errOut, code := runCmd(t, in.String(), "-json", "-robots", path, "-")
		if code != exitDisallowed || errOut != "" {
			t.Fatalf("exit %d, stderr %q", code, errOut)
		}
		ls := decodeJSON(t, out)
		if len(ls) != n {
			t.Fatalf("%d objects, want %d", len(ls), n)
		}
		for i, l := range ls {
			if l.Allowed != (i%3 != 0) || (i%3 == 2) != (l.Line == 0) {
				t.Fatalf("object %d: %+v", i, l)
			}
		}
	})
}

func TestJSON(t *testing.T) {
	t.Parallel()
	delay := 2.0
	t.Run("local", func(t *testing.T) {
		t.Parallel()
		path := writeFile(t, robotsTxt)
		out, errOut, code := runCmd(t, "", "-json", "-robots", path, "/private/a", "/foo", "::bad")
		if code != exitError {
			t.Errorf("exit %d, want %d", code, exitError)
		}
		if strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "::bad: invalid URL") {
			t.Errorf("stderr: %q", errOut)
		}
		got := decodeJSON(t, out)
		want := []jsonLine{
			{result: result{
				URL: "/private/a", Allowed: false, Reason: "disallowed by rule", Line: 2, Rule: "/private",
				LineText: "Disallow: /private  # not for you", GroupLines: []int{1}, GroupSpecific: false,
				CrawlDelay: &delay, Sitemaps: []string{"https://example.com/sitemap.xml"}, RobotsFile: path,
			}},
			{result: result{
				URL: "/foo", Allowed: true, Reason: "no rule matched", GroupLines: []int{1},
				CrawlDelay: &delay, Sitemaps: []string{"https://example.com/sitemap.xml"}, RobotsFile: path,
			}},
			{result: result{URL: "::bad"}, Error: "invalid URL: missing protocol scheme"},
		}
		compareJSON(t, got, want)
	})
	t.Run("fetched", func(t *testing.T) {
		t.Parallel()
		ok := newOrigin(t, 301, robotsTxt)
		down := newOrigin(t, 503, "")
		out, errOut, code := runCmd(t, "", "-json", "-ua", "FooBot", ok.URL+"/foo/x", down.URL+"/a")
		if code != exitDisallowed || errOut != "" {
			t.Errorf("exit %d, stderr %q", code, errOut)
		}
		got := decodeJSON(t, out)
		want := []jsonLine{
			{result: result{
				URL: ok.URL + "/foo/x", Allowed: false, Reason: "disallowed by rule", Line: 8, Rule: "/foo", LineText: "Disallow: /foo",
				GroupLines: []int{6}, GroupSpecific: true, Sitemaps: []string{"https://example.com/sitemap.xml"},
				RobotsURL: ok.URL + "/robots.txt", FinalURL: ok.URL + "/moved/robots.txt", Status: 200, Outcome: "ok",
			}},
			{result: result{
				URL: down.URL + "/a", Allowed: false, Reason: "robots.txt unreachable", GroupLines: []int{},
				Sitemaps: []string{}, RobotsURL: down.URL + "/robots.txt", Status: 503, Outcome: "unreachable",
				FetchError: fetchError(t, down.URL+"/a"),
			}},
		}
		compareJSON(t, got, want)
		// Fields are always present, null or empty when there is nothing.
		first := strings.SplitN(out, "\n", 2)[0]
		for _, f := range []string{`"crawl_delay":null`, `"line_text":"Disallow: /foo"`} {
			if !strings.Contains(first, f) {
				t.Errorf("first object %s: presence of %s is wrong", first, f)
			}
		}
	})
}

func compareJSON(t *testing.T, got, want []jsonLine) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d objects, want %d: %+v", len(got), len(want), got)
	}
	for i := range got {
		g, _ := json.Marshal(got[i])
		w, _ := json.Marshal(want[i])
		if !bytes.Equal(g, w) {
			t.Errorf("object %d:\n got %s\nwant %s", i, g, w)
		}
	}
}

// TestBadInput checks that every usage error and unusable input exits 2
// with a one-line message naming the problem.
func TestBadInput(t *testing.T) {
	t.Parallel()
	path := writeFile(t, robotsTxt)
	missing := filepath.Join(t.TempDir(), "missing.txt")
	tests := []struct {
		name  string
		stdin string
		args  []string
		msg   string // in the one line of stderr
		out   string // verdict lines still printed
	}{
		{name: "missing file", args: []string{"-robots", missing, "/a"}, msg: "reading robots.txt: open " + missing},
		{name: "directory as file", args: []string{"-robots", t.TempDir(), "/a"}, msg: "reading robots.txt: "},
		{name: "invalid URL", args: []string{"-robots", path, "http://[::1"}, msg: "http://[::1: invalid URL: missing ']' in host"},
		{name: "invalid URL among good ones", args: []string{"-robots", path, "/private/a", "%zz", "/b"}, msg: `%zz: invalid URL: invalid URL escape "%zz"`,
			out: "DISALLOWED /private/a  disallowed by rule, line 2: Disallow: /private  # not for you\nALLOWED    /b  no rule matched"},
		{name: "relative path", args: []string{"-robots", path, "a/b"}, msg: "a/b: want an absolute http(s) URL or a path starting with '/'"},
		{name: "not http", args: []string{"-robots", path, "ftp://example.com/a"}, msg: "ftp://example.com/a: not an http or https URL"},
		{name: "path without -robots", args: []string{"/a"}, msg: "/a: not an absolute http(s) URL; give one, or check paths against a file with -robots"},
		{name: "host without scheme", args: []string{"example.com/a"}, msg: "example.com/a: not an absolute http(s) URL"},
		{name: "no host", args: []string{"http:///a"}, msg: "http:///a: not an absolute http(s) URL"},
		{name: "bad port", stdin: "http://example.com:x/\n", args: nil, msg: `http://example.com:x/: invalid URL: invalid port ":x" after host`},
		{name: "ua with version", args: []string{"-ua", "FooBot/1.0", "-robots", path, "/a"}, msg: `-ua "FooBot/1.0": want a product token`},
		{name: "empty ua", args: []string{"-ua", "", "-robots", path, "/a"}, msg: `-ua "": want a product token`},
		{name: "bad fail mode", args: []string{"-fail", "maybe", "-robots", path, "/a"}, msg: `-fail "maybe": want closed or open`},
		{name: "bad unauthorized", args: []string{"-unauthorized", "yes", "-robots", path, "/a"}, msg: `-unauthorized "yes": want allow or disallow`},
		{name: "negative timeout", args: []string{"-timeout", "-1s", "-robots", path, "/a"}, msg: "-timeout -1s: want a positive duration"},
		{name: "flag after URL", args: []string{"-robots", path, "/a", "-json"}, msg: "-json: flags must come before the URLs"},
		{name: "line too long", stdin: "/" + strings.Repeat("a", 2<<20) + "\n", args: []string{"-robots", path}, msg: "reading URLs: bufio.Scanner: token too long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, errOut, code := runCmd(t, tt.stdin, tt.args...)
			if code != exitError {
				t.Errorf("exit %d, want %d", code, exitError)
			}
			lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "robotscheck: ") || !strings.Contains(lines[0], tt.msg) {
				t.Errorf("stderr: %q, want one line with %q", errOut, tt.msg)
			}
			if got := strings.Join(verdictLines(out), "\n"); got != tt.out {
				t.Errorf("verdicts:\n%s\nwant:\n%s", got, tt.out)
			}
		})
	}
}

func TestFlagErrors(t *testing.T) {
	t.Parallel()
	if _, errOut, code := runCmd(t, "", "-nope"); code != exitError || !strings.Contains(errOut, "flag provided but not defined: -nope") || !strings.Contains(errOut, "usage: robotscheck") {
		t.Errorf("unknown flag: exit %d, stderr %q", code, errOut)
	}
	if out, errOut, code := runCmd(t, "", "-h"); code != exitAllowed || out != "" || !strings.Contains(errOut, "usage: robotscheck") {
		t.Errorf("-h: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestPrintable checks that control characters from a robots.txt reach the
// terminal escaped.
func TestPrintable(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"Disallow: /a", "Disallow: /a"},
		{"Disallow: /ä\t# x", `Disallow: /ä\t# x`},
		{"Disallow: /\x1b[2J", `Disallow: /\x1b[2J`},
		{"Disallow: /\xff", `Disallow: /\xff`},
		{"Disallow: /\u200b", `Disallow: /\u200b`},
		{"Disallow: /\u202etxt.exe", `Disallow: /\u202etxt.exe`},
		{"Disallow: /\u009b2J", `Disallow: /\u009b2J`},
	}
	for _, tt := range tests {
		if got := printable(tt.in); got != tt.want {
			t.Errorf("printable(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
	path := writeFile(t, "User-agent: *\nDisallow: /x\x1b]0;pwned\x07\n")
	out, _, _ := runCmd(t, "", "-robots", path, "/x")
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("control characters reached the output: %q", out)
	}
}

// TestWorstStatus checks that an error outranks a disallowed URL.
func TestWorstStatus(t *testing.T) {
	t.Parallel()
	path := writeFile(t, robotsTxt)
	if _, _, code := runCmd(t, "/private/a\nftp://x/\n/b\n", "-robots", path); code != exitError {
		t.Errorf("exit %d, want %d", code, exitError)
	}
	if _, _, code := runCmd(t, "", "-robots", path, "/a", "/b"); code != exitAllowed {
		t.Errorf("exit %d, want %d", code, exitAllowed)
	}
	// An empty file allows everything.
	empty := writeFile(t, "")
	if out, errOut, code := runCmd(t, "", "-robots", empty, "/a"); code != exitAllowed || errOut != "" ||
		!strings.Contains(out, `# group for robotscheck: none (no group names robotscheck and there is no "*" group)`) {
		t.Errorf("empty file: exit %d, stderr %q, output\n%s", code, errOut, out)
	}
}

// TestOversized checks the warning for a robots.txt longer than crawlers
// read, local or fetched; it changes neither the verdict nor the status.
func TestOversized(t *testing.T) {
	t.Parallel()
	body := "User-agent: *\nDisallow: /a\n" + strings.Repeat("# padding\n", robotsext.MaxBodySize/10+1)
	path := writeFile(t, body)
	o := newOrigin(t, 200, body)
	for _, args := range [][]string{{"-robots", path, "/a"}, {o.URL + "/a"}} {
		out, errOut, code := runCmd(t, "", args...)
		if code != exitDisallowed || len(verdictLines(out)) != 1 {
			t.Errorf("%v: exit %d, output\n%s", args, code, out)
		}
		if strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "robotscheck: warning: ") ||
			!strings.Contains(errOut, fmt.Sprint(robotsext.MaxBodySize)) {
			t.Errorf("%v: stderr %q, want one warning", args, errOut)
		}
	}
}

// TestNoCredentialPrinted: a URL given with userinfo is checked as any
// other, but its user and password never reach the output, the JSON
// stream or an error line.
func TestNoCredentialPrinted(t *testing.T) {
	t.Parallel()
	file := writeFile(t, "User-agent: *\nDisallow: /private\n")
	tests := []struct {
		name string
		args []string
		want string // in stdout or stderr
	}{
		{"text", []string{"-robots", file, "http://alice:s3cret@example.com/private/a"}, "DISALLOWED http://xxxxx@example.com/private/a"},
		{"json", []string{"-json", "-robots", file, "https://tok3n@example.com/open"}, `"url":"https://xxxxx@example.com/open"`},
		{"bad URL", []string{"-robots", file, "http://bob:s3cret@[::1/x"}, "http://xxxxx@[::1/x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			stdout, stderr, _ := runCmd(t, "", tt.args...)
			all := stdout + stderr
			if !strings.Contains(all, tt.want) {
				t.Errorf("output lacks %q:\n%s", tt.want, all)
			}
			for _, secret := range []string{"s3cret", "tok3n", "alice", "bob"} {
				if strings.Contains(all, secret) {
					t.Errorf("output shows %q:\n%s", secret, all)
				}
			}
		})
	}
}
