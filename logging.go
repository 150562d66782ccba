package robotsext

// This file is what the Extension tells the logger (by default
// internal/warnlog's, which sends warnings to slog.Default()): the record
// of each robots.txt fetch, and the default pace of hosts whose robots.txt
// states none.

import (
	"context"
	"log/slog"

	"github.com/robotsext/robotsext/internal/lifecycle"
	"github.com/robotsext/robotsext/internal/useragent"
)

// logFetch logs a fetch outcome (Info; Warn when unreachable) with the
// token and the groups it chose, and once a token that does not occur in
// the User-Agent sent.
func (e *Extension) logFetch(ctx context.Context, en *lifecycle.Entry, token, ua string) {
	l, r := e.cfg.logger, en.Robots
	level := slog.LevelInfo
	if r.Outcome == OutcomeUnreachable {
		level = slog.LevelWarn
	}
	if l.Enabled(ctx, level) {
		attrs := []any{"url", r.URL, "outcome", r.Outcome.String(), "status", r.Status, "expires", en.Expires, "token", token}
		if en.Policy != nil {
			lines, specific := en.Policy.Groups(token)
			attrs = append(attrs, "group_lines", lines, "group_specific", specific)
		}
		if r.Err != nil {
			attrs = append(attrs, "error", r.Err.Error())
		}
		if r.Outcome == OutcomeUnreachable {
			attrs = append(attrs, "fail_mode", e.cfg.failMode.String())
		}
		if r.Truncated {
			attrs = append(attrs, "truncated", true)
		}
		if r.NotModified {
			attrs = append(attrs, "not_modified", true)
		}
		if en.Stale {
			attrs = append(attrs, "stale_copy_from", en.GoodAt)
		}
		if en.Override {
			attrs = append(attrs, "override", true)
		}
		l.Log(ctx, level, "robotsext: fetched robots.txt", attrs...)
	}
	e.judgeSent(ua) // identitycheck.go: the User-Agent the robots.txt request carried
	if token != "" && token != noToken && !useragent.ContainsFold(ua, token) && e.id.warnedMissing.CompareAndSwap(false, true) {
		l.Warn("robotsext: the product token does not occur in the User-Agent sent; robots.txt groups are matched against the token",
			"token", token, "user_agent", ua)
	}
}

// logDefaultPace says that host, whose robots.txt states no Crawl-delay,
// is paced at the default pace: once per Extension at Info, naming the
// pace and the option that changes it, as a crawl that is suddenly much
// slower than without robotsext should say why; and for each host at
// Debug. Nothing is said while the default pace is off
// (WithDefaultDelay(0) warns at Apply instead).
func (e *Extension) logDefaultPace(ctx context.Context, host string) {
	d, l := e.pacer.Default(), e.cfg.logger
	if d <= 0 {
		return
	}
	if l.Enabled(ctx, slog.LevelInfo) && e.paceSaid.CompareAndSwap(false, true) {
		why := "DefaultDelay; WithDefaultDelay changes it"
		switch {
		case e.cfg.defaultDelaySet:
			why = "WithDefaultDelay's"
		case d != DefaultDelay:
			why = "DefaultDelay, capped by WithMaxCrawlDelay; WithDefaultDelay changes it"
		}
		msg := "robotsext: hosts whose robots.txt states no Crawl-delay are paced at the default pace, one request every " +
			d.String() + " per host (" + why + ")"
		l.Info(msg, "default_delay", d, "first_host", host)
	}
	if l.Enabled(ctx, slog.LevelDebug) {
		l.Debug("robotsext: robots.txt states no Crawl-delay: the host is paced at the default pace", "host", host, "delay", d)
	}
}
