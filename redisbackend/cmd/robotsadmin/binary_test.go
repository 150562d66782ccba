package main

// These tests build the robotsadmin binary and run it against a real
// redis-server, as an operator does.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/redis/go-redis/v9"
	"github.com/robotsext/robotsext"
	"github.com/robotsext/robotsext/backend"
	"github.com/robotsext/robotsext/redisbackend"
)

// binPath is the robotsadmin binary TestMain builds.
var binPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "robotsadmin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	binPath = filepath.Join(dir, "robotsadmin")
	if out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building robotsadmin: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// runBin runs the binary and returns its output and exit status.
func runBin(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(binPath, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatalf("running robotsadmin: %v", err)
	}
	return out.String(), errb.String(), code
}

// redisServer starts a redis-server of the test's own on a free loopback
// port with the extra arguments and returns its address. Without
// redis-server on PATH the test is skipped (failed when CI is set).
func redisServer(t *testing.T, extra ...string) string {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("redis-server not found on PATH")
		}
		t.Skip("redis-server not found on PATH (apt-get install -y redis-server)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, port, _ := net.SplitHostPort(addr)
	dir := t.TempDir()
	args := append([]string{"--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", dir, "--loglevel", "warning"}, extra...)
	var logs bytes.Buffer
	cmd := exec.Command("redis-server", args...)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// Polling until the new process listens: it has no other way to say so.
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server did not listen within 10s: %v\n%s", err, logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// hostile is a robots.txt written to drive the operator's terminal: set
// the window title, clear the screen, print a fake line, reorder text with
// a right-to-left override, and send an 8-bit CSI.
const hostile = "User-agent: *\r\nDisallow: /a\x1b]0;pwned\x07\x1b[2J\r\n" +
	"all records purged\rDisallow: /b\u202etxt.exe\u009b2J\xff\r\n"

// storeFetched fetches site's robots.txt with the library and stores it
// for the fleet under prefix, as a worker does; it returns the origin.
func storeFetched(t *testing.T, addr, prefix, site string, hdr http.Header) string {
	t.Helper()
	r, err := robotsext.FetchRobots(context.Background(), site+"/", robotsext.WithHeaders(hdr))
	if err != nil {
		t.Fatal(err)
	}
	origin := strings.TrimSuffix(r.URL, "/robots.txt")
	client := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { client.Close() })
	b := redisbackend.New(client, redisbackend.WithPrefix(prefix), redisbackend.WithHeartbeat(-1), redisbackend.WithTimeout(5*time.Second))
	ctx := context.Background()
	now := time.Now()
	rec := &backend.Record{Latest: backend.Answer{URL: r.URL, FinalURL: r.FinalURL, Status: r.Status, Outcome: backend.OutcomeOK,
		Body: r.Body, ETag: r.ETag, LastModified: r.LastModified, FetchedAt: now, Expires: now.Add(time.Hour)},
		GoodAt: now, Expires: now.Add(time.Hour)}
	l, ok, _, err := b.Lease(ctx, origin, time.Minute)
	if err != nil || !ok {
		t.Fatalf("Lease: %v %v", ok, err)
	}
	if err := b.Store(ctx, origin, l, rec); err != nil {
		t.Fatal(err)
	}
	return origin
}

// terminalSafe fails t when out holds a byte or character a terminal acts
// on: C0 controls other than newline, DEL, C1 controls, invalid UTF-8, or
// a bidirectional override.
func terminalSafe(t *testing.T, what, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("%s is not valid UTF-8: %q", what, out)
	}
	for _, r := range out {
		if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) || r == '\u202e' {
			t.Errorf("%s holds %U: %q", what, r, out)
			return
		}
	}
}

// TestBinaryShowsEscapes: a site serving a hostile robots.txt and
// validators; show and list print them escaped.
func TestBinaryShowsEscapes(t *testing.T) {
	t.Parallel()
	addr := redisServer(t)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", "\"v1\u202e\u009b\"")
		w.Header().Set("Last-Modified", "Wed, 25 Nov 2026 10:00:00 GMT\u202e")
		w.Write([]byte(hostile))
	}))
	defer site.Close()
	origin := storeFetched(t, addr, "esc:", site.URL, nil)
	out, errOut, code := runBin(t, "-redis", addr, "-prefix", "esc:", "show", origin)
	if code != 0 {
		t.Fatalf("show: exit %d, stderr %q", code, errOut)
	}
	terminalSafe(t, "show's output", out)
	for _, want := range []string{`Disallow: /a\x1b]0;pwned\x07\x1b[2J` + "\n", `all records purged\rDisallow: /b\u202etxt.exe\u009b2J\xff` + "\n",
		`ETag "v1\u202e\u009b", Last-Modified Wed, 25 Nov 2026 10:00:00 GMT\u202e`, "control characters escaped"} {
		if !strings.Contains(out, want) {
			t.Errorf("show's output lacks %q:\n%s", want, out)
		}
	}
	out, errOut, code = runBin(t, "-redis", addr, "-prefix", "esc:", "list")
	if code != 0 || !strings.Contains(out, origin) {
		t.Fatalf("list: exit %d, stderr %q, output\n%s", code, errOut, out)
	}
	terminalSafe(t, "list's output", out)
}

// TestBinaryRedactsCredentials: neither a refused password nor the right
// one (on an out-of-range DB index) reaches any message.
func TestBinaryRedactsCredentials(t *testing.T) {
	t.Parallel()
	const pass = "s3cr3t-Pa55"
	addr := redisServer(t, "--requirepass", pass)
	aclAddr := redisServer(t, "--user", "crawler", "on", ">"+pass, "~*", "+@all")
	tests := []struct {
		name, redis, secret, want string
	}{
		{"refused password", "redis://:wr0ng-Pa55@" + addr + "/0", "wr0ng-Pa55", "WRONGPASS"},
		{"right password, DB out of range", "redis://:" + pass + "@" + addr + "/99", pass, "DB index is out of range"},
		{"user and password refused", "redis://crawler:n0pe-Pa55@" + aclAddr + "/0", "n0pe-Pa55", "WRONGPASS"},
		{"user and password, DB out of range", "redis://crawler:" + pass + "@" + aclAddr + "/99", pass, "out of range"},
		{"password with a percent escape", "redis://:p%40ss-W0rd@" + addr + "/0", "p@ss-W0rd", "WRONGPASS"},
		{"unparsable URL", "redis://:unp4rsable-pw@[bad", "unp4rsable-pw", "-redis"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, cmd := range [][]string{{"list"}, {"show", "https://example.com"}, {"purge", "https://example.com"}} {
				out, errOut, code := runBin(t, append([]string{"-redis", tt.redis, "-timeout", "2s"}, cmd...)...)
				if code != 2 {
					t.Errorf("%v: exit %d, want 2", cmd, code)
				}
				if strings.Contains(out+errOut, tt.secret) || strings.Contains(out+errOut, "crawler:") {
					t.Errorf("%v: a credential was printed: %q", cmd, errOut)
				}
				if !strings.Contains(errOut, tt.want) || !strings.Contains(errOut, "xxxxx") {
					t.Errorf("%v: stderr %q, want %q and the credentials as xxxxx", cmd, errOut, tt.want)
				}
			}
		})
	}
	// The right password works, and -h says that credentials are hidden.
	if _, errOut, code := runBin(t, "-redis", "redis://:"+pass+"@"+addr+"/0", "list"); code != 2 || !strings.Contains(errOut, "nothing was ever stored") {
		t.Errorf("right password on an empty Redis: exit %d, stderr %q", code, errOut)
	}
	if _, errOut, _ := runBin(t, "-h"); !strings.Contains(errOut, "printed as xxxxx") || !strings.Contains(errOut, "escaped") {
		t.Errorf("-h does not say what is escaped and hidden: %q", errOut)
	}
}

// TestBinaryEmptyFleetAndBadInput: after every record is purged, list is a
// normal answer; a prefix that never held anything keeps its hint; an
// empty -prefix and a port out of range are usage errors.
func TestBinaryEmptyFleetAndBadInput(t *testing.T) {
	t.Parallel()
	addr := redisServer(t)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("User-agent: *\nDisallow: /x\n"))
	}))
	defer site.Close()
	origin := storeFetched(t, addr, "fleet:", site.URL, nil)
	if out, errOut, code := runBin(t, "-redis", addr, "-prefix", "fleet:", "purge", origin); code != 0 {
		t.Fatalf("purge: exit %d, %q %q", code, out, errOut)
	}
	out, errOut, code := runBin(t, "-redis", addr, "-prefix", "fleet:", "list")
	if code != 0 || strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, "ORIGIN") ||
		!strings.Contains(errOut, `no origin has a record under prefix "fleet:"`) {
		t.Errorf("list after purge: exit %d, stdout %q, stderr %q; want the header alone and exit 0", code, out, errOut)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a prefix that never held anything", []string{"-prefix", "other:", "list"}, `nothing was ever stored under prefix "other:"`},
		{"empty prefix", []string{"-prefix", "", "list"}, "-prefix is empty"},
		{"port out of range", []string{"-prefix", "fleet:", "show", "https://example.com:99999/"}, "port 99999 is out of range (1-65535)"},
		{"port zero", []string{"-prefix", "fleet:", "show", "http://example.com:0"}, "port 0 is out of range"},
		{"unknown state", []string{"-prefix", "fleet:", "-state", "ok,gone", "list"}, `unknown state "gone"`},
		{"bad host pattern", []string{"-prefix", "fleet:", "-host", "[a-", "list"}, "bad host pattern"},
		{"brace in host pattern", []string{"-prefix", "fleet:", "-host", "a}b", "list"}, "bad host pattern"},
		{"filter on show", []string{"-prefix", "fleet:", "-host", "a", "show", "https://a"}, "-host and -state filter list"},
	}
	for _, tt := range tests {
		_, errOut, code := runBin(t, append([]string{"-redis", addr}, tt.args...)...)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", tt.name, code, errOut, tt.want)
		}
	}
}
