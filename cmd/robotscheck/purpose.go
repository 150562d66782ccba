package main

// This file is -purpose, and the Extension -page fetches pages with: an
// Extension of its own decides as a collector declaring the purposes
// would, robots.txt with the origin's tdmrep.json.

import (
	"context"
	"log/slog"

	"github.com/robotsext/robotsext"
)

// extOptions are the options of the command's Extension: the command's,
// with its fail mode, WithPurpose when purposes is not nil, and a logger
// that drops everything: the command reports what it finds itself.
func extOptions(opts []robotsext.Option, mode robotsext.FailMode, purposes []robotsext.Purpose) []robotsext.Option {
	opts = append(opts[:len(opts):len(opts)], robotsext.WithFailMode(mode), robotsext.WithLogger(slog.New(slog.DiscardHandler)))
	if purposes != nil {
		opts = append(opts, robotsext.WithPurpose(purposes...))
	}
	return opts
}

// withPurposes decides raw, which robots.txt allows with v, as the
// Extension's OnRequest hook would for a crawler declaring c.purposes:
// the usage preferences of robots.txt and of the origin's tdmrep.json,
// combined; a refusal replaces v. The Extension reads robots.txt on its
// own, so an origin's robots.txt is fetched twice, once for the report
// and once for the decision.
func (c *checker) withPurposes(raw string, v robotsext.Verdict) robotsext.Verdict {
	ctx := context.Background()
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 2*c.timeout)
		defer cancel()
	}
	got, err := c.ext.CheckContext(ctx, raw)
	if err != nil {
		c.out.warn("%s: usage preferences not read: %v", raw, err)
		c.worsen(exitError)
		return v
	}
	if got.Reason == robotsext.ReasonUsage {
		return got
	}
	v.Usage = got.Usage
	return v
}
