package main

// This file is -page: fetch an allowed URL and say what its X-Robots-Tag
// headers and robots meta tags tell the agent, and the AI usage
// preferences and TDM reservation in force for it.

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/gocolly/colly/v2"
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
	// Usage is Page.Usage: the preferences in force by key, and
	// UsageStatements every mechanism's when some is overruled;
	// UsageText prints them. Refused is Page.Refused (-purpose).
	Usage           []usageResult `json:"usage,omitempty"`
	UsageStatements []usageResult `json:"usage_statements,omitempty"`
	UsageText       string        `json:"-"`
	Refused         bool          `json:"refused,omitempty"`
	// TDMRep is Page.TDMRep, when a reservation is stated.
	TDMRep *tdmResult `json:"tdmrep,omitempty"`
}

// tdmResult is a page's TDM reservation.
type tdmResult struct {
	Reservation string `json:"reservation"` // "1" or "0"
	Policy      string `json:"policy,omitempty"`
	Source      string `json:"source"`
	Rule        int    `json:"rule,omitempty"` // the tdmrep.json rule's index
}

// fetchPage fetches raw as the agent would and reads, with ext's Page, its
// directives for ua (the headers, and the head of at most
// robotsext.MaxHeadScan octets of an HTML body) and its usage
// preferences.
func fetchPage(ext *robotsext.Extension, raw, ua string, timeout time.Duration) (*pageResult, error) {
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
	p := ext.Page(&colly.Response{
		StatusCode: resp.StatusCode, Body: body, Headers: &resp.Header,
		Request: &colly.Request{URL: resp.Request.URL, Method: http.MethodGet, Ctx: colly.NewContext()},
	})
	d := p.Directives
	res := &pageResult{Status: resp.StatusCode, Directives: d.String(), NoIndex: d.NoIndex, NoFollow: d.NoFollow,
		NofollowRule: d.NofollowRule(), Refused: p.Refused}
	if !d.UnavailableAfter.IsZero() {
		res.UnavailableAfter = d.UnavailableAfter.Format(time.RFC3339)
	}
	if !p.Usage.IsZero() {
		res.Usage, res.UsageText = usageResults(p.Usage.Statements()), usageText(p.Usage)
		if all := p.Usage.All(); len(all) != len(res.Usage) {
			res.UsageStatements = usageResults(all)
		}
	}
	if t := p.TDMRep; t.Reservation != robotsext.TDMUnset {
		res.TDMRep = &tdmResult{Reservation: t.Reservation.String(), Policy: t.Policy, Source: t.Source.String(), Rule: t.Rule}
	}
	return res, nil
}
