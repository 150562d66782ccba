package main

// This file is -page: fetch an allowed URL and say what its X-Robots-Tag
// headers and robots meta tags tell the agent.

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/robotsext/robotsext"
)

// pageResult is what -page found on one page.
type pageResult struct {
	Status     int    `json:"status"`
	Directives string `json:"directives"` // Directives.String()
	NoIndex    bool   `json:"noindex"`
	NoFollow   bool   `json:"nofollow"`
	// NofollowRule is the rule that said nofollow or none, as a
	// collector's Verdict.Rule reports it.
	NofollowRule string `json:"nofollow_rule,omitempty"`
	// UnavailableAfter is RFC 3339 in UTC; "" when not stated.
	UnavailableAfter string `json:"unavailable_after,omitempty"`
}

// fetchPage fetches raw as the agent would and reads its directives for
// ua: the headers, and the head of at most robotsext.MaxHeadScan octets of
// an HTML body.
func fetchPage(raw, ua string, timeout time.Duration) (*pageResult, error) {
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", ua)
	req.Header.Set("Accept", "text/html,*/*;q=0.8")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, cause(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, robotsext.MaxHeadScan))
	if err != nil {
		return nil, fmt.Errorf("reading the page: %v", cause(err))
	}
	d := robotsext.ReadDirectives(ua, resp.Header, body)
	res := &pageResult{Status: resp.StatusCode, Directives: d.String(), NoIndex: d.NoIndex, NoFollow: d.NoFollow,
		NofollowRule: d.NofollowRule()}
	if !d.UnavailableAfter.IsZero() {
		res.UnavailableAfter = d.UnavailableAfter.Format(time.RFC3339)
	}
	return res, nil
}
