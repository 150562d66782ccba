package main

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
)

// readSpy is a standard input that counts the reads made of it.
type readSpy struct {
	r     io.Reader
	reads int
}

func (s *readSpy) Read(p []byte) (int, error) {
	s.reads++
	return s.r.Read(p)
}

// TestNoURLs checks what happens when no URL is given: an empty standard
// input is an error, and a terminal gets the usage instead of a silent
// wait, unless "-" asks for it to be read.
func TestNoURLs(t *testing.T) {
	t.Parallel()
	path := writeFile(t, robotsTxt)
	tests := []struct {
		name     string
		stdin    string
		terminal bool
		args     []string
		code     int
		stdout   string   // exact
		stderr   []string // substrings
		noRead   bool     // stdin must not be read
	}{
		{name: "empty stdin", args: []string{"-robots", path},
			code: exitError, stderr: []string{"robotscheck: no URLs to check: standard input held none"}},
		{name: "empty stdin, fetching", args: nil,
			code: exitError, stderr: []string{"no URLs to check"}},
		{name: "blank lines and comments", stdin: "\n  \n# a comment\n", args: []string{"-robots", path},
			code: exitError, stderr: []string{"no URLs to check"}},
		{name: "empty stdin, json", args: []string{"-json", "-robots", path},
			code: exitError, stderr: []string{"no URLs to check"}},
		{name: "explicit - and an empty stdin", args: []string{"-robots", path, "-"},
			code: exitError, stderr: []string{"no URLs to check"}},
		{name: "terminal, no arguments", terminal: true, args: []string{"-robots", path},
			code: exitError, noRead: true,
			stderr: []string{"usage: robotscheck", "-robots file", "robotscheck: no URLs: give them as arguments"}},
		{name: "terminal, no arguments, no flags", terminal: true,
			code: exitError, noRead: true, stderr: []string{"usage: robotscheck"}},
		{name: "terminal, URL arguments", terminal: true, args: []string{"-robots", path, "/a"},
			code: exitAllowed, noRead: true},
		{name: "terminal, -", terminal: true, stdin: "/private/a\n", args: []string{"-robots", path, "-"},
			code: exitDisallowed},
		{name: "URLs on stdin", stdin: "/a\n", args: []string{"-robots", path},
			code: exitAllowed},
		{name: "an empty stdin among URL arguments", args: []string{"-robots", path, "/a", "-"},
			code: exitAllowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := &readSpy{r: strings.NewReader(tt.stdin)}
			var out, errb bytes.Buffer
			code := run(tt.args, in, tt.terminal, &out, &errb)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr %q", code, tt.code, errb.String())
			}
			if tt.code == exitError && out.String() != "" {
				t.Errorf("stdout %q, want none", out.String())
			}
			for _, want := range tt.stderr {
				if !strings.Contains(errb.String(), want) {
					t.Errorf("stderr %q does not say %q", errb.String(), want)
				}
			}
			if tt.code != exitError && errb.String() != "" {
				t.Errorf("stderr %q, want none", errb.String())
			}
			if tt.noRead && in.reads > 0 {
				t.Errorf("standard input was read %d times", in.reads)
			}
		})
	}
}

// TestIsTerminal checks the terminal test on files that are not
// terminals; a real terminal cannot be had in a test.
func TestIsTerminal(t *testing.T) {
	t.Parallel()
	f, err := os.Open(writeFile(t, "x"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	closed, err := os.Open(writeFile(t, "x"))
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	null, err := os.Open(os.DevNull) // a character device, but no terminal
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	for name, file := range map[string]*os.File{"regular file": f, "pipe": r, "closed file": closed, "the null device": null} {
		if isTerminal(file) {
			t.Errorf("%s: isTerminal = true", name)
		}
	}
}

// TestNotARobotsFile: a -robots file in which no line parses (binary
// data, an HTML page) is checked as the empty file it is, with a warning
// on stderr naming it; a real robots.txt and an empty file get none.
func TestNotARobotsFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		warn bool
	}{
		{"binary", "\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00>\x00", true},
		{"html", "<!doctype html>\n<html><head><title>Not found</title></head><body>404</body></html>\n", true},
		{"robots.txt", "User-agent: *\nDisallow: /private\n", false},
		{"sitemap only", "Sitemap: https://example.com/sitemap.xml\n", false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := writeFile(t, tt.body)
			_, stderr, code := runCmd(t, "", "-robots", path, "/x")
			if code != exitAllowed {
				t.Errorf("exit %d, want %d (everything is allowed)", code, exitAllowed)
			}
			if got := strings.Contains(stderr, "no robots.txt line that parses") && strings.Contains(stderr, path); got != tt.warn {
				t.Errorf("warning naming the file = %v, want %v; stderr %q", got, tt.warn, stderr)
			}
		})
	}
}
