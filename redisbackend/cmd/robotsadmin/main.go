// Command robotsadmin shows and steers what a fleet of robotsext workers
// shares through Redis (the redisbackend module): which origins have a
// robots.txt record, what one record holds, which worker is fetching an
// origin's robots.txt, and the fleet-wide purge of one origin.
//
// Usage:
//
//	robotsadmin [flags] list             one line per origin: outcome, status, fetched, expires, failures, delay, lease
//	                                     (streamed as Redis is scanned, in no particular order)
//	robotsadmin [flags] show URL|ORIGIN  one origin's record decoded, its robots.txt body and its lease
//	robotsadmin [flags] purge URL|ORIGIN drop the origin's record for the whole fleet (Forget)
//
// Flags:
//
//	-redis ADDR    host:port, unix:/path/to/socket or a redis:// URL (password, database); default localhost:6379;
//	               for a Redis Cluster, its nodes' host:port separated by commas (one is enough with -cluster)
//	-cluster       -redis names a Redis Cluster: one or more nodes (host:port, comma-separated), or a
//	               redis:// URL with more nodes as addr= parameters; implied by several addresses
//	-prefix P      the workers' key prefix (redisbackend.WithPrefix); default "robotsext:"
//	-agent TOKEN   the product token whose Crawl-delay is shown; default "*"
//	-timeout D     the bound on each Redis call (not on the command); default 5s
//	-host GLOB     list only origins whose host[:port] matches GLOB (path.Match syntax: "*.example.com")
//	-state LIST    list only origins in these states, comma-separated: ok, unavailable, unreachable,
//	               unauthorized, stale (unreachable, last good copy obeyed), unreadable, leased
//
// An origin is given as a URL ("https://Example.com/any/path") or as an
// origin ("https://example.com"); it is reduced to the form the workers
// use. After a purge each worker drops its near-cached copy within a few
// seconds (it reads the purge log while crawling) and the next request
// fetches robots.txt again, once for the fleet.
//
// list streams: it prints each page of about a thousand origins as SCAN
// finds them, reading their records in one pipelined round trip per few
// hundred origins, so a fleet of a million origins prints from the first
// second and takes as long as it takes (about 10 s per million on a local
// Redis; see docs/scaling.md). Columns are aligned within each page; pipe
// the output to sort for an ordered list. A summary ("listed 12 of 12
// origins") follows on standard error. A fleet with no record (every one
// purged or expired) is a normal answer: the header alone, exit status 0.
//
// Everything printed that a site or the fleet wrote (robots.txt bodies,
// URLs, errors, validators, origins, worker ids) has its control and
// format characters escaped, as \x1b, \u009b or \u202e (see
// internal/termsafe): a robots.txt cannot set the terminal's title, clear
// it or reorder what it shows. A CRLF body prints as lines. The password
// (and user name) of a -redis URL is never printed: every message shows
// it as xxxxx.
//
// On a Redis Cluster, list scans every master and show and purge go to
// the node that holds the origin's slot; the commands are the same.
//
// Every error (Redis unreachable, a wrong prefix under which nothing was
// ever stored, an origin without a record, bad arguments such as an empty
// -prefix, one holding a brace, or a port outside 1-65535) is one line on
// standard error and exit status 2.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/robotsext/robotsext"
	"github.com/robotsext/robotsext/backend"
	"github.com/robotsext/robotsext/internal/redact"
	"github.com/robotsext/robotsext/internal/termsafe"
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
	addr := fs.String("redis", "localhost:6379", "Redis: host:port, unix:/path or a redis:// URL; a Cluster: its nodes' host:port, comma-separated")
	cluster := fs.Bool("cluster", false, "-redis names a Redis Cluster (implied by several addresses)")
	prefix := fs.String("prefix", redisbackend.DefaultPrefix, "the workers' key prefix")
	agent := fs.String("agent", "*", "product token whose Crawl-delay is shown")
	timeout := fs.Duration("timeout", 5*time.Second, "bound on each Redis call (not on the command)")
	host := fs.String("host", "", "list: only origins whose host[:port] matches this `glob`, such as *.example.com")
	state := fs.String("state", "", "list: only origins in these `states`: ok, unavailable, unreachable, unauthorized, stale, unreadable, leased")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: robotsadmin [flags] list | show URL | purge URL")
		fs.PrintDefaults()
		fmt.Fprintln(stderr, "Control and format characters from robots.txt files, URLs and errors are printed escaped (\\x1b, \\u202e);\n"+
			"the credentials of a -redis URL are printed as xxxxx.")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	prefixGiven := false
	fs.Visit(func(f *flag.Flag) { prefixGiven = prefixGiven || f.Name == "prefix" })
	var err error
	switch {
	case prefixGiven && *prefix == "":
		err = usageError{fmt.Sprintf("-prefix is empty: give the workers' key prefix (redisbackend.WithPrefix; the default is %q)", redisbackend.DefaultPrefix)}
	case redisbackend.CheckPrefix(*prefix) != nil:
		err = usageError{"-prefix: " + redisbackend.CheckPrefix(*prefix).Error()}
	default:
		f := filter{host: *host}
		if f.states, err = parseStates(*state); err == nil {
			err = dispatch(fs.Args(), server{addr: *addr, cluster: *cluster}, *prefix, *agent, *timeout, f, stdout, stderr)
		}
	}
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "robotsadmin:", termsafe.Line(redact.Credentials(err.Error(), *addr)))
	if errors.As(err, new(usageError)) {
		fs.Usage()
	}
	return 2
}

// server is where -redis and -cluster say Redis is.
type server struct {
	addr    string
	cluster bool
}

// dispatch runs one subcommand.
func dispatch(args []string, srv server, prefix, agent string, timeout time.Duration, f filter, w, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError{"no command given"}
	}
	if err := robotsext.ValidToken(agent); err != nil {
		return usageError{"-agent: " + err.Error()}
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
	case cmd != "list" && (f.host != "" || f.states != nil):
		return usageError{"-host and -state filter list; " + cmd + " takes one origin"}
	}
	client, err := newClient(srv, timeout)
	if err != nil {
		return err
	}
	defer client.Close()
	pctx, cancel := context.WithTimeout(context.Background(), timeout)
	err = client.Ping(pctx).Err()
	cancel()
	if err != nil {
		return fmt.Errorf("cannot reach Redis at %s: %v", srv.addr, err) // run redacts addr's credentials
	}
	// Each call of the Backend is bounded by timeout; the command is not.
	ctx := context.Background()
	b := redisbackend.New(client, redisbackend.WithPrefix(prefix), redisbackend.WithTimeout(timeout),
		redisbackend.WithHeartbeat(-1), redisbackend.WithWorkerID("robotsadmin"))
	a := admin{b: b, prefix: prefix, agent: agent, w: w, stderr: stderr}
	switch cmd {
	case "list":
		return a.list(ctx, f)
	case "show":
		return a.show(ctx, rest[0])
	default:
		return a.purge(ctx, rest[0])
	}
}

// newClient makes the client of srv: a ClusterClient for a Cluster (-cluster,
// or several addresses), else a Client, each call bounded by timeout and
// not retried (one clear error rather than three slow ones).
func newClient(srv server, timeout time.Duration) (redis.UniversalClient, error) {
	if !srv.cluster && !strings.Contains(srv.addr, ",") {
		opts, err := clientOptions(srv.addr)
		if err != nil {
			return nil, err
		}
		opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = timeout, timeout, timeout
		opts.MaxRetries = -1
		return redis.NewClient(opts), nil
	}
	opts, err := clusterOptions(srv.addr)
	if err != nil {
		return nil, err
	}
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = timeout, timeout, timeout
	opts.MaxRetries = -1
	return redis.NewClusterClient(opts), nil
}

// clusterOptions reads -redis for a Cluster: host:port addresses separated
// by commas, or a redis:// URL (more nodes as addr= parameters).
func clusterOptions(addr string) (*redis.ClusterOptions, error) {
	if strings.HasPrefix(addr, "redis://") || strings.HasPrefix(addr, "rediss://") {
		o, err := redis.ParseClusterURL(addr)
		if err != nil {
			return nil, usageError{fmt.Sprintf("-redis %q: %v", addr, err)}
		}
		return o, nil
	}
	var addrs []string
	for a := range strings.SplitSeq(addr, ",") {
		a = strings.TrimSpace(a)
		if _, _, err := net.SplitHostPort(a); err != nil || strings.HasPrefix(a, "unix:") {
			return nil, usageError{fmt.Sprintf("-redis %q: a Redis Cluster's nodes are host:port, comma-separated (%q is not)", addr, a)}
		}
		addrs = append(addrs, a)
	}
	return &redis.ClusterOptions{Addrs: addrs}, nil
}

// clientOptions reads -redis for one server.
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
	stderr io.Writer // the list's summary
}

// inspectBatch is how many origins list reads in one pipelined round trip:
// small enough that a batch of large records stays a few megabytes.
const inspectBatch = 200

// list prints one line per origin with a record that passes f, page by
// page as the scan finds them, and a summary on a.stderr.
func (a admin) list(ctx context.Context, f filter) error {
	tw := tabwriter.NewWriter(a.w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ORIGIN\tOUTCOME\tSTATUS\tFETCHED\tEXPIRES\tFAILURES\tDELAY\tLEASE")
	if err := tw.Flush(); err != nil {
		return err
	}
	scanned, listed := 0, 0
	err := a.b.ScanOrigins(ctx, f.host, func(page []string) error {
		for len(page) > 0 {
			n := min(len(page), inspectBatch)
			sts, err := a.b.InspectMany(ctx, page[:n])
			if err != nil {
				return err
			}
			page = page[n:]
			for _, st := range sts {
				if st.Record == nil && !st.Corrupt {
					continue // expired or purged since the scan
				}
				scanned++
				if !f.keeps(st) {
					continue
				}
				listed++
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", termsafe.Line(st.Origin), outcome(st), status(st),
					when(st, fetchedAt), when(st, expiresAt), failures(st), a.delay(st), holder(st))
			}
		}
		return tw.Flush() // each page as it comes
	})
	if errors.Is(err, redisbackend.ErrBadHostPattern) {
		return usageError{"-host: " + err.Error()}
	}
	if err != nil {
		return err
	}
	if scanned == 0 && f.host == "" {
		// Nothing to list: a fleet whose records were all purged or
		// expired, or a prefix that never held anything.
		if err := a.checkPrefix(ctx); err != nil {
			return err
		}
		fmt.Fprintf(a.stderr, "robotsadmin: no origin has a record under prefix %q (the fleet's heartbeats or purge log are there: every record was purged or has expired)\n", a.prefix)
		return nil
	}
	fmt.Fprintf(a.stderr, "robotsadmin: listed %d of %d origins with a record%s\n", listed, scanned, f)
	return nil
}

// filter is what list keeps: origins whose host matches host (path.Match;
// "" keeps all) and whose state is one of states (nil keeps all).
type filter struct {
	host   string
	states map[string]bool
}

// states list can filter on, in the order the help names them.
var stateNames = []string{"ok", "unavailable", "unreachable", "unauthorized", "stale", "unreadable", "leased"}

// parseStates reads -state.
func parseStates(list string) (map[string]bool, error) {
	if list == "" {
		return nil, nil
	}
	m := map[string]bool{}
	for _, s := range strings.Split(list, ",") {
		s = strings.ToLower(strings.TrimSpace(s))
		known := false
		for _, n := range stateNames {
			known = known || n == s
		}
		if !known {
			return nil, usageError{fmt.Sprintf("-state %q: unknown state %q; want a comma-separated list of %s", list, s, strings.Join(stateNames, ", "))}
		}
		m[s] = true
	}
	return m, nil
}

// keeps reports whether list prints st.
func (f filter) keeps(st redisbackend.OriginState) bool {
	if f.states == nil {
		return true
	}
	if st.LeaseHolder != "" && f.states["leased"] {
		return true
	}
	if st.Corrupt {
		return f.states["unreadable"]
	}
	l := st.Record.Latest
	if l.Outcome == backend.OutcomeUnreachable && st.Record.Good != nil && f.states["stale"] {
		return true
	}
	return f.states[l.Outcome.String()]
}

// String describes the filter for the summary: "" without one.
func (f filter) String() string {
	var parts []string
	if f.host != "" {
		parts = append(parts, "host "+strconv.Quote(f.host))
	}
	if f.states != nil {
		var ss []string
		for _, n := range stateNames {
			if f.states[n] {
				ss = append(ss, n)
			}
		}
		parts = append(parts, "state "+strings.Join(ss, ","))
	}
	if parts == nil {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// show prints one origin's record, body and lease.
func (a admin) show(ctx context.Context, arg string) error {
	st, err := a.inspect(ctx, arg)
	if err != nil {
		return err
	}
	p := func(k string, v any) { fmt.Fprintf(a.w, "%-14s %v\n", k+":", v) }
	p("origin", termsafe.Line(st.Origin))
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
	p("url", termsafe.Line(r.Latest.URL))
	if r.Latest.FinalURL != "" && r.Latest.FinalURL != r.Latest.URL {
		p("final url", fmt.Sprintf("%s (%d redirects)", termsafe.Line(r.Latest.FinalURL), r.Latest.Redirects))
	}
	if r.Latest.Err != "" {
		p("error", termsafe.Line(r.Latest.Err))
	}
	p("fetched", when(st, fetchedAt))
	p("expires", when(st, expiresAt))
	p("failures", r.Failures)
	if !r.GoodAt.IsZero() {
		p("good since", r.GoodAt.UTC().Format(time.RFC3339))
	}
	if r.Latest.ETag != "" || r.Latest.LastModified != "" {
		p("validators", fmt.Sprintf("ETag %s, Last-Modified %s", termsafe.Line(orNone(r.Latest.ETag)), termsafe.Line(orNone(r.Latest.LastModified))))
	}
	p("kept until", fmt.Sprintf("%s (Redis TTL %s)", r.KeepUntil().UTC().Format(time.RFC3339), st.RecordTTL.Round(time.Second)))
	p("crawl-delay", a.delay(st)+" (for "+termsafe.Line(a.agent)+")")
	body, what := r.Latest.Body, "robots.txt"
	if r.Latest.Outcome != backend.OutcomeOK && r.Good != nil {
		body, what = r.Good.Body, "robots.txt (the last good copy, still obeyed)"
	}
	if body != nil {
		fmt.Fprintf(a.w, "--- %s, %d bytes%s, control characters escaped ---\n", what, len(body), truncated(r))
		text := termsafe.Text(string(body))
		io.WriteString(a.w, text)
		if len(text) > 0 && text[len(text)-1] != '\n' {
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
	fmt.Fprintf(a.w, "purged %s: workers drop their copy within seconds; the next request fetches robots.txt again\n", termsafe.Line(st.Origin))
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
		return fmt.Errorf("nothing was ever stored under prefix %q (no record, lease, heartbeat or purge log): is it the workers' prefix (redisbackend.WithPrefix)?", a.prefix)
	}
	return nil
}

// originOf reduces a URL or an origin to the workers' form of it.
func originOf(arg string) (string, error) {
	u, err := robotsext.RobotsURL(arg)
	if err != nil {
		return "", usageError{fmt.Sprintf("%q is not an http(s) URL or origin: %v", arg, err)}
	}
	if pu, err := url.Parse(u); err == nil && pu.Port() != "" {
		if n, err := strconv.Atoi(pu.Port()); err != nil || n < 1 || n > 65535 {
			return "", usageError{fmt.Sprintf("%q: port %s is out of range (1-65535)", arg, pu.Port())}
		}
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
	s := st.Record.Latest.Outcome.String()
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
	return fmt.Sprintf("%s (%s left)", termsafe.Line(st.LeaseHolder), st.LeaseTTL.Round(time.Millisecond))
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func truncated(r *backend.Record) string {
	if r.Latest.Truncated {
		return ", cut at robotsext.MaxBodySize"
	}
	return ""
}
