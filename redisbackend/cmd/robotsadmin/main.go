// Command robotsadmin shows and steers what a fleet of robotsext workers
// shares through Redis (the redisbackend module): which origins have a
// robots.txt record, what one record holds, which worker is fetching an
// origin's robots.txt, and the fleet-wide purge of one origin.
//
// Usage:
//
//	robotsadmin [flags] list             one line per origin: outcome, status, fetched, expires, failures, delay, lease
//	robotsadmin [flags] show URL|ORIGIN  one origin's record decoded, its robots.txt body and its lease
//	robotsadmin [flags] purge URL|ORIGIN drop the origin's record for the whole fleet (Forget)
//
// Flags:
//
//	-redis ADDR    host:port, unix:/path/to/socket or a redis:// URL (password, database); default localhost:6379
//	-prefix P      the workers' key prefix (redisbackend.WithPrefix); default "robotsext:"
//	-agent TOKEN   the product token whose Crawl-delay is shown; default "*"
//	-timeout D     the bound on each Redis call; default 5s
//
// An origin is given as a URL ("https://Example.com/any/path") or as an
// origin ("https://example.com"); it is reduced to the form the workers
// use. After a purge each worker drops its near-cached copy within a few
// seconds (it reads the purge log while crawling) and the next request
// fetches robots.txt again, once for the fleet.
//
// Every error (Redis unreachable, a wrong prefix under which nothing is
// stored, an origin without a record, bad arguments) is one line on
// standard error and exit status 2.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/robotsext/robotsext"
	"github.com/robotsext/robotsext/backend"
	"github.com/robotsext/robotsext/redisbackend"
)

func main() {
	redis.SetLogger(quiet{}) // go-redis logs dial retries; run reports the error once
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// quiet is a go-redis logger that drops what it is given.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// usageError is a mistake in the command line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// run is the command; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("robotsadmin", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("redis", "localhost:6379", "Redis: host:port, unix:/path or a redis:// URL")
	prefix := fs.String("prefix", redisbackend.DefaultPrefix, "the workers' key prefix")
	agent := fs.String("agent", "*", "product token whose Crawl-delay is shown")
	timeout := fs.Duration("timeout", 5*time.Second, "bound on each Redis call")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: robotsadmin [flags] list | show URL | purge URL")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	err := dispatch(fs.Args(), *addr, *prefix, *agent, *timeout, stdout)
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "robotsadmin:", err)
	if errors.As(err, new(usageError)) {
		fs.Usage()
	}
	return 2
}

// dispatch runs one subcommand.
func dispatch(args []string, addr, prefix, agent string, timeout time.Duration, w io.Writer) error {
	if len(args) == 0 {
		return usageError{"no command given"}
	}
	cmd, rest := args[0], args[1:]
	want := 1
	if cmd == "list" {
		want = 0
	}
	switch {
	case cmd != "list" && cmd != "show" && cmd != "purge":
		return usageError{fmt.Sprintf("unknown command %q", cmd)}
	case len(rest) != want:
		return usageError{fmt.Sprintf("%s takes %d argument(s), got %d", cmd, want, len(rest))}
	case timeout <= 0:
		return usageError{"-timeout must be positive"}
	}
	opts, err := clientOptions(addr)
	if err != nil {
		return err
	}
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = timeout, timeout, timeout
	opts.MaxRetries = -1 // one clear error rather than three slow ones
	client := redis.NewClient(opts)
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*timeout)
	defer cancel()
	if err := client.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("cannot reach Redis at %s: %v", addr, err)
	}
	b := redisbackend.New(client, redisbackend.WithPrefix(prefix), redisbackend.WithTimeout(timeout),
		redisbackend.WithHeartbeat(-1), redisbackend.WithWorkerID("robotsadmin"))
	a := admin{b: b, prefix: prefix, agent: agent, w: w}
	switch cmd {
	case "list":
		return a.list(ctx)
	case "show":
		return a.show(ctx, rest[0])
	default:
		return a.purge(ctx, rest[0])
	}
}

// clientOptions reads -redis.
func clientOptions(addr string) (*redis.Options, error) {
	switch {
	case strings.HasPrefix(addr, "redis://") || strings.HasPrefix(addr, "rediss://") || strings.HasPrefix(addr, "unix://"):
		o, err := redis.ParseURL(addr)
		if err != nil {
			return nil, usageError{fmt.Sprintf("-redis %q: %v", addr, err)}
		}
		return o, nil
	case strings.HasPrefix(addr, "unix:"):
		return &redis.Options{Network: "unix", Addr: strings.TrimPrefix(addr, "unix:")}, nil
	case addr == "":
		return nil, usageError{"-redis is empty"}
	default:
		return &redis.Options{Addr: addr}, nil
	}
}

// admin runs the subcommands against one Backend.
type admin struct {
	b      *redisbackend.Backend
	prefix string
	agent  string
	w      io.Writer
}

// list prints one line per origin with a record, sorted.
func (a admin) list(ctx context.Context) error {
	var origins []string
	if err := a.b.Origins(ctx, func(o string) error {
		origins = append(origins, o)
		return nil
	}); err != nil {
		return err
	}
	if len(origins) == 0 {
		if err := a.checkPrefix(ctx); err != nil {
			return err
		}
	}
	slices.Sort(origins)
	tw := tabwriter.NewWriter(a.w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ORIGIN\tOUTCOME\tSTATUS\tFETCHED\tEXPIRES\tFAILURES\tDELAY\tLEASE")
	for _, o := range origins {
		st, err := a.b.Inspect(ctx, o)
		if err != nil {
			return err
		}
		if st.Record == nil && !st.Corrupt {
			continue // expired since the scan
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", o, outcome(st), status(st), when(st, fetchedAt), when(st, expiresAt),
			failures(st), a.delay(st), holder(st))
	}
	return tw.Flush()
}

// show prints one origin's record, body and lease.
func (a admin) show(ctx context.Context, arg string) error {
	st, err := a.inspect(ctx, arg)
	if err != nil {
		return err
	}
	p := func(k string, v any) { fmt.Fprintf(a.w, "%-14s %v\n", k+":", v) }
	p("origin", st.Origin)
	p("lease", holder(st))
	if st.Pause != "" {
		p("back-off", fmt.Sprintf("%s until %s (the host asked for less: 429, 503 or a run of 5xx)", st.Pause, st.PauseEnds.UTC().Format(time.RFC3339Nano)))
	}
	if st.Corrupt {
		p("record", "stored but unreadable (damaged, or written by a later version); the next worker to need it fetches robots.txt again")
		return nil
	}
	if st.Record == nil {
		p("record", "none yet (the lease holder is fetching robots.txt)")
		return nil
	}
	r := st.Record
	p("outcome", outcome(st))
	p("status", status(st))
	p("url", r.Latest.URL)
	if r.Latest.FinalURL != "" && r.Latest.FinalURL != r.Latest.URL {
		p("final url", fmt.Sprintf("%s (%d redirects)", r.Latest.FinalURL, r.Latest.Redirects))
	}
	if r.Latest.Err != "" {
		p("error", r.Latest.Err)
	}
	p("fetched", when(st, fetchedAt))
	p("expires", when(st, expiresAt))
	p("failures", r.Failures)
	if !r.GoodAt.IsZero() {
		p("good since", r.GoodAt.UTC().Format(time.RFC3339))
	}
	if r.Latest.ETag != "" || r.Latest.LastModified != "" {
		p("validators", fmt.Sprintf("ETag %q, Last-Modified %q", r.Latest.ETag, r.Latest.LastModified))
	}
	p("kept until", fmt.Sprintf("%s (Redis TTL %s)", r.KeepUntil().UTC().Format(time.RFC3339), st.RecordTTL.Round(time.Second)))
	p("crawl-delay", a.delay(st)+" (for "+a.agent+")")
	body, what := r.Latest.Body, "robots.txt"
	if r.Latest.Outcome != backend.OutcomeOK && r.Good != nil {
		body, what = r.Good.Body, "robots.txt (the last good copy, still obeyed)"
	}
	if body != nil {
		fmt.Fprintf(a.w, "--- %s, %d bytes%s ---\n", what, len(body), truncated(r))
		a.w.Write(body)
		if len(body) > 0 && body[len(body)-1] != '\n' {
			fmt.Fprintln(a.w)
		}
		fmt.Fprintln(a.w, "---")
	}
	return nil
}

// purge forgets one origin for the fleet.
func (a admin) purge(ctx context.Context, arg string) error {
	st, err := a.inspect(ctx, arg)
	if err != nil {
		return err
	}
	f, ok := any(a.b).(backend.Forgetter)
	if !ok {
		return errors.New("this redisbackend cannot purge (no Forget)")
	}
	if err := f.Forget(ctx, st.Origin); err != nil {
		return err
	}
	fmt.Fprintf(a.w, "purged %s: workers drop their copy within seconds; the next request fetches robots.txt again\n", st.Origin)
	return nil
}

// inspect reads the origin arg names and fails when nothing is stored.
func (a admin) inspect(ctx context.Context, arg string) (redisbackend.OriginState, error) {
	origin, err := originOf(arg)
	if err != nil {
		return redisbackend.OriginState{}, err
	}
	st, err := a.b.Inspect(ctx, origin)
	if err != nil {
		return st, err
	}
	if st.Record == nil && !st.Corrupt && st.LeaseHolder == "" && st.Pause == "" {
		if err := a.checkPrefix(ctx); err != nil {
			return st, err
		}
		return st, fmt.Errorf("no record for %s under prefix %q (not crawled yet, expired, or purged)", origin, a.prefix)
	}
	return st, nil
}

// checkPrefix fails when nothing at all is stored under the prefix.
func (a admin) checkPrefix(ctx context.Context) error {
	ok, err := a.b.HasState(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("nothing is stored under prefix %q: is it the workers' prefix (redisbackend.WithPrefix)?", a.prefix)
	}
	return nil
}

// originOf reduces a URL or an origin to the workers' form of it.
func originOf(arg string) (string, error) {
	u, err := robotsext.RobotsURL(arg)
	if err != nil {
		return "", usageError{fmt.Sprintf("%q is not an http(s) URL or origin: %v", arg, err)}
	}
	return strings.TrimSuffix(u, "/robots.txt"), nil
}

func outcome(st redisbackend.OriginState) string {
	switch {
	case st.Corrupt:
		return "unreadable"
	case st.Record == nil:
		return "-"
	}
	s := robotsext.Outcome(st.Record.Latest.Outcome).String()
	if st.Record.Latest.Outcome == backend.OutcomeUnreachable && st.Record.Good != nil {
		s += " (stale copy obeyed)"
	}
	return s
}

func status(st redisbackend.OriginState) string {
	if st.Record == nil || st.Record.Latest.Status == 0 {
		return "-"
	}
	return fmt.Sprint(st.Record.Latest.Status)
}

func failures(st redisbackend.OriginState) string {
	if st.Record == nil {
		return "-"
	}
	return fmt.Sprint(st.Record.Failures)
}

const (
	fetchedAt = iota
	expiresAt
)

// when prints a record's fetch or expiry time, relative to now.
func when(st redisbackend.OriginState, which int) string {
	if st.Record == nil {
		return "-"
	}
	t := st.Record.Latest.FetchedAt
	if which == expiresAt {
		t = st.Record.Expires
	}
	if t.IsZero() {
		return "-"
	}
	d := time.Until(t).Round(time.Second)
	rel := "in " + d.String()
	if d < 0 {
		rel = (-d).String() + " ago"
	}
	return t.UTC().Format(time.RFC3339) + " (" + rel + ")"
}

// delay is the Crawl-delay the obeyed copy asks a.agent for.
func (a admin) delay(st redisbackend.OriginState) string {
	if st.Record == nil {
		return "-"
	}
	body := st.Record.Latest.Body
	if st.Record.Latest.Outcome != backend.OutcomeOK {
		if st.Record.Good == nil {
			return "-"
		}
		body = st.Record.Good.Body
	}
	d, ok := robotsext.ParsePolicy(body).CrawlDelay(a.agent)
	if !ok {
		return "none"
	}
	return d.String()
}

func holder(st redisbackend.OriginState) string {
	if st.LeaseHolder == "" {
		return "-"
	}
	return fmt.Sprintf("%s (%s left)", st.LeaseHolder, st.LeaseTTL.Round(time.Millisecond))
}

func truncated(r *backend.Record) string {
	if r.Latest.Truncated {
		return ", cut at robotsext.MaxBodySize"
	}
	return ""
}
