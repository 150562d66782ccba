package robotsext

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"unicode"
)

// This file keeps the README and docs/ honest: every relative link and
// #anchor resolves, the README stays short, the options table lists every
// option once, and the samples quoted from robotscheck and robotsprom
// match what the code says, and go doc shows every Example function.

// maxReadme is the README's size limit in bytes: a newcomer reads it in
// minutes; everything else belongs in docs/.
const maxReadme = 16 << 10

// markdownFiles returns README.md and the Markdown files under docs/.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no Markdown files in docs/")
	}
	return append([]string{"README.md"}, files...)
}

func TestDocsLinksResolve(t *testing.T) {
	t.Parallel()
	fsys := os.DirFS(".")
	for _, name := range markdownFiles(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, problem := range checkLinks(fsys, filepath.ToSlash(name)) {
				t.Error(problem)
			}
		})
	}
}

func TestDocsReadmeSize(t *testing.T) {
	t.Parallel()
	fi, err := os.Stat("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > maxReadme {
		t.Errorf("README.md is %d bytes; keep it within %d and move the rest to docs/", fi.Size(), maxReadme)
	}
}

// The link checker itself: it must report each kind of broken link, and
// accept the forms GitHub resolves.
func TestDocsLinkCheckerCatchesBrokenLinks(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"README.md": {Data: []byte("# Top\n\n" +
			"[ok](docs/a.md) [ok](docs/a.md#a-heading) [ok](#top) [ok](docs/) [ok](https://example.com/x.md#nowhere)\n" +
			"[missing file](docs/b.md) [missing anchor](docs/a.md#no-such-heading) [missing here](#nowhere)\n" +
			"`[in code](nowhere.md)`\n\n```\n[in a fence](nowhere.md)\n```\n" +
			"[ref]: docs/gone.md\n")},
		"docs/a.md": {Data: []byte("# A heading\n\n## A heading\n\n[up](../README.md#top) [dup](#a-heading-1) [bad dup](#a-heading-2)\n")},
	}
	cases := []struct {
		file string
		want []string
	}{
		{"README.md", []string{
			`README.md: link "docs/b.md": docs/b.md does not exist`,
			`README.md: link "docs/a.md#no-such-heading": docs/a.md has no heading with anchor #no-such-heading`,
			`README.md: link "#nowhere": README.md has no heading with anchor #nowhere`,
			`README.md: link "docs/gone.md": docs/gone.md does not exist`,
		}},
		{"docs/a.md", []string{
			`docs/a.md: link "#a-heading-2": docs/a.md has no heading with anchor #a-heading-2`,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			got := checkLinks(fsys, tc.file)
			if !slices.Equal(got, tc.want) {
				t.Errorf("checkLinks(%s):\n got %q\nwant %q", tc.file, got, tc.want)
			}
		})
	}
}

func TestDocsSlugs(t *testing.T) {
	t.Parallel()
	cases := []struct{ heading, want string }{
		{"Installation", "installation"},
		{"Why not Colly's own check?", "why-not-collys-own-check"},
		{"robotscheck: may this bot fetch this URL, and why?", "robotscheck-may-this-bot-fetch-this-url-and-why"},
		{"Redis: the `redisbackend` module", "redis-the-redisbackend-module"},
		{"Politeness: Crawl-delay and Request-rate", "politeness-crawl-delay-and-request-rate"},
		{"When robots.txt is unreachable", "when-robotstxt-is-unreachable"},
		{"snake_case stays", "snake_case-stays"},
		{"A [linked](x.md) word", "a-linked-word"},
		{"Über café", "über-café"},
		{"two  spaces", "two--spaces"},
	}
	for _, tc := range cases {
		if got := slug(tc.heading); got != tc.want {
			t.Errorf("slug(%q) = %q, want %q", tc.heading, got, tc.want)
		}
	}
}

// Every option of the package appears in docs/options.md's tables exactly
// once, linked to its documentation, and the tables name no option that
// does not exist.
func TestDocsOptionsTable(t *testing.T) {
	t.Parallel()
	table, err := os.ReadFile("docs/options.md")
	if err != nil {
		t.Fatal(err)
	}
	sources, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	decl := regexp.MustCompile(`(?m)^func (With[A-Za-z]+)\(`)
	var options []string
	for _, f := range sources {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range decl.FindAllSubmatch(b, -1) {
			options = append(options, string(m[1]))
		}
	}
	row := regexp.MustCompile("(?m)^\\| \\[`(With[A-Za-z]+)`\\]\\(https://pkg\\.go\\.dev/github\\.com/robotsext/robotsext#(With[A-Za-z]+)\\) \\|")
	rows := map[string]int{}
	for _, m := range row.FindAllStringSubmatch(string(table), -1) {
		if m[1] != m[2] {
			t.Errorf("docs/options.md: %s links to #%s", m[1], m[2])
		}
		rows[m[1]]++
	}
	for _, o := range options {
		if rows[o] != 1 {
			t.Errorf("docs/options.md: %s has %d rows, want 1 linking to its godoc", o, rows[o])
		}
	}
	for o := range rows {
		if !slices.Contains(options, o) {
			t.Errorf("docs/options.md lists %s, which the package does not declare", o)
		}
	}
}

// The robotscheck samples in docs/robotscheck.md are quoted from runs on
// a file of the repository: its size and every verdict must still be what
// the matcher says.
func TestDocsRobotscheckSamples(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("docs/robotscheck.md")
	if err != nil {
		t.Fatal(err)
	}
	header := regexp.MustCompile(`^# robots\.txt: (\S+) \(local file, (\d+) bytes\)$`)
	group := regexp.MustCompile(`^# group for ([A-Za-z_-]+):`)
	verdict := regexp.MustCompile(`^(ALLOWED|DISALLOWED) +(\S+)  (.*?)(?:, line (\d+): .*)?$`)
	var (
		policy  *Policy
		token   string
		checked int
	)
	sc := bufio.NewScanner(strings.NewReader(string(doc)))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "# robots.txt: ") {
			policy = nil // a fetched file is not checked here; a local one is read below
		}
		if m := header.FindStringSubmatch(line); m != nil {
			body, err := os.ReadFile(m[1])
			if err != nil {
				t.Fatalf("robotscheck sample: %v", err)
			}
			if m[2] != strconv.Itoa(len(body)) {
				t.Errorf("robotscheck sample says %s has %s bytes; it has %d", m[1], m[2], len(body))
			}
			policy = ParsePolicy(body)
			continue
		}
		if m := group.FindStringSubmatch(line); m != nil {
			token = m[1]
			continue
		}
		m := verdict.FindStringSubmatch(line)
		if m == nil || policy == nil {
			continue
		}
		v := policy.Check(token, m[2])
		want := fmt.Sprintf("%v %d %s", v.Allowed, v.Line, v.Reason)
		n, _ := strconv.Atoi(m[4])
		if got := fmt.Sprintf("%v %d %s", m[1] == "ALLOWED", n, m[3]); got != want {
			t.Errorf("robotscheck sample %q: the matcher says %s", line, want)
		}
		checked++
	}
	if checked == 0 {
		t.Error("no robotscheck verdicts found in docs/robotscheck.md")
	}
}

// Every test the docs cite (such as `TestMultiProcess` or
// `TestE2EDifferencesFromBuiltin/HEAD_requests_are_checked`) exists, in
// this module or a nested one.
func TestDocsCitedTestsExist(t *testing.T) {
	t.Parallel()
	var tests []byte
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && p != "." {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, "_test.go") {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			tests = append(tests, b...)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	declared := string(tests) // once: the test files are megabytes
	cited := regexp.MustCompile("`((?:Test|Fuzz)[A-Za-z0-9_]+)[^`]*`")
	for _, name := range markdownFiles(t) {
		md, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range cited.FindAllSubmatch(md, -1) {
			if !strings.Contains(declared, "func "+string(m[1])+"(") {
				t.Errorf("%s cites %s, which no test file declares", name, m[1])
			}
		}
	}
}

// TestDocsExamplesShown checks that go doc and pkg.go.dev show every
// Example function of the module's packages and the nested modules'.
func TestDocsExamplesShown(t *testing.T) {
	t.Parallel()
	dirs := []string{".", "backend", "backend/backendtest", "cacheresult", "directive", "metrics", "redisbackend", "robotsprom", "robotsotel", "statusclass", "usage", "webbotauth"}
	for _, dir := range dirs {
		t.Run(dir, func(t *testing.T) {
			t.Parallel()
			fset := token.NewFileSet()
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			var files []*ast.File
			for _, e := range entries {
				if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
					continue
				}
				if ok, err := build.Default.MatchFile(dir, e.Name()); err != nil || !ok {
					continue
				}
				f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.ParseComments)
				if err != nil {
					t.Fatal(err)
				}
				files = append(files, f)
			}
			dropped, err := droppedExamples(fset, files)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range dropped {
				t.Errorf("Example%s is named after no package, function, type or method, so go doc drops it", name)
			}
		})
	}
}

// TestDocsDroppedExamples checks droppedExamples on small packages: go/doc
// keeps an example named after the package, a function, a type or a
// method, and drops one named after a variable, a constant or nothing.
func TestDocsDroppedExamples(t *testing.T) {
	t.Parallel()
	const src = `package p

// ErrX is a variable.
var ErrX = error(nil)

// Max is a constant.
const Max = 1

// T is a type.
type T struct{}

// M is a method.
func (T) M() {}

// F is a function.
func F() {}
`
	tests := []struct {
		name    string
		example string // the Example function's name
		dropped bool
	}{
		{"package", "Example", false},
		{"package, suffix", "Example_second", false},
		{"function", "ExampleF", false},
		{"type", "ExampleT", false},
		{"method", "ExampleT_M", false},
		{"type, suffix", "ExampleT_second", false},
		{"variable", "ExampleErrX", true},
		{"constant", "ExampleMax", true},
		{"unknown", "ExampleNothing", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fset := token.NewFileSet()
			pkg, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			test, err := parser.ParseFile(fset, "p_test.go",
				"package p_test\n\nfunc "+tt.example+"() {\n\t// Output:\n}\n", parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			dropped, err := droppedExamples(fset, []*ast.File{pkg, test})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(dropped) == 1; got != tt.dropped || len(dropped) > 1 {
				t.Errorf("%s: dropped %q, want dropped = %v", tt.example, dropped, tt.dropped)
			}
		})
	}
}

// droppedExamples returns the names (without "Example") of the Example
// functions in files that go/doc attaches to nothing: it shows an example
// under the package, a function, a type or a method of that name, and
// silently leaves out one named after a variable or a constant.
func droppedExamples(fset *token.FileSet, files []*ast.File) ([]string, error) {
	var tests []*ast.File
	for _, f := range files {
		if strings.HasSuffix(fset.File(f.Pos()).Name(), "_test.go") {
			tests = append(tests, f)
		}
	}
	p, err := doc.NewFromFiles(fset, files, "example.com/p")
	if err != nil {
		return nil, err
	}
	shown := map[string]bool{}
	add := func(exs []*doc.Example) {
		for _, ex := range exs {
			shown[ex.Name] = true
		}
	}
	add(p.Examples)
	for _, f := range p.Funcs {
		add(f.Examples)
	}
	for _, ty := range p.Types {
		add(ty.Examples)
		for _, f := range ty.Funcs {
			add(f.Examples)
		}
		for _, m := range ty.Methods {
			add(m.Examples)
		}
	}
	var dropped []string
	for _, ex := range doc.Examples(tests...) {
		if !shown[ex.Name] {
			dropped = append(dropped, ex.Name)
		}
	}
	return dropped, nil
}

// checkLinks returns a line for each relative link or anchor in the
// Markdown file name of fsys that does not resolve. Links inside code
// (fenced blocks and spans) are not links; absolute URLs are not checked.
func checkLinks(fsys fs.FS, name string) []string {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return []string{err.Error()}
	}
	var problems []string
	for _, target := range linkTargets(string(b)) {
		if strings.Contains(target, ":") && !strings.HasPrefix(target, "#") {
			continue // https:, mailto: and the like
		}
		file, anchor, _ := strings.Cut(target, "#")
		resolved := name
		if file != "" {
			resolved = path.Clean(path.Join(path.Dir(name), file))
			if _, err := fs.Stat(fsys, resolved); err != nil {
				problems = append(problems, fmt.Sprintf("%s: link %q: %s does not exist", name, target, resolved))
				continue
			}
		}
		if anchor == "" {
			continue
		}
		if !strings.HasSuffix(resolved, ".md") {
			problems = append(problems, fmt.Sprintf("%s: link %q: an anchor into %s, which is not Markdown", name, target, resolved))
			continue
		}
		doc, err := fs.ReadFile(fsys, resolved)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: link %q: %v", name, target, err))
			continue
		}
		if !slices.Contains(anchors(string(doc)), anchor) {
			problems = append(problems, fmt.Sprintf("%s: link %q: %s has no heading with anchor #%s", name, target, resolved, anchor))
		}
	}
	return problems
}

var (
	fence       = regexp.MustCompile("(?ms)^```.*?^```")
	codeSpan    = regexp.MustCompile("`[^`\n]*`")
	inlineLink  = regexp.MustCompile(`\[[^\]\n]*\]\(([^()\s]+)(?:\s+"[^"]*")?\)`)
	definition  = regexp.MustCompile(`(?m)^ {0,3}\[[^\]\n]+\]:\s*(\S+)`)
	headingLine = regexp.MustCompile(`^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$`)
)

// linkTargets returns the targets of the inline links and link
// definitions of a Markdown text, in order, outside code.
func linkTargets(md string) []string {
	md = fence.ReplaceAllString(md, "")
	md = codeSpan.ReplaceAllString(md, "")
	var targets []string
	for _, m := range inlineLink.FindAllStringSubmatch(md, -1) {
		targets = append(targets, m[1])
	}
	for _, m := range definition.FindAllStringSubmatch(md, -1) {
		targets = append(targets, m[1])
	}
	return targets
}

// anchors returns the anchors GitHub gives the ATX headings of a Markdown
// text: each heading's slug, with -1, -2, … added to repeats.
func anchors(md string) []string {
	md = fence.ReplaceAllString(md, "")
	seen := map[string]int{}
	var out []string
	for _, line := range strings.Split(md, "\n") {
		m := headingLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		s := slug(m[1])
		if n := seen[s]; n > 0 {
			out = append(out, s+"-"+strconv.Itoa(n))
		} else {
			out = append(out, s)
		}
		seen[s]++
	}
	return out
}

var linkText = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

// slug is GitHub's anchor for a heading's text: links reduced to their
// text, lower case, letters, digits, '-' and '_' kept, each space turned
// into '-', everything else dropped.
func slug(heading string) string {
	heading = linkText.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
