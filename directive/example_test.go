package directive_test

import (
	"fmt"

	"github.com/robotsext/robotsext/directive"
)

// A page's header and its meta tags each say something; Add puts them
// together, the restrictive rule winning, and From tells where each rule
// was stated.
func ExampleDirectives_Add() {
	var header, meta directive.Directives
	header.NoIndex = true
	header.Mark(directive.NoIndex, directive.FromXRobotsTag)
	header.MaxSnippet = directive.Limit{Set: true, N: 50}
	header.Mark(directive.MaxSnippet, directive.FromXRobotsTag)

	meta.NoIndex = true
	meta.Mark(directive.NoIndex, directive.FromMeta)
	meta.MaxSnippet = directive.Limit{Set: true, N: 20}
	meta.Mark(directive.MaxSnippet, directive.FromMeta)

	page := header
	page.Add(meta)
	fmt.Println(page)
	fmt.Println("noindex from:", page.From(directive.NoIndex))
	fmt.Println("noarchive from:", page.From(directive.NoArchive) == 0)
	// Output:
	// noindex, max-snippet:20
	// noindex from: header+meta
	// noarchive from: true
}

// The zero Directives is a page that said nothing.
func ExampleDirectives_IsZero() {
	var d directive.Directives
	fmt.Println(d.IsZero(), d)
	d.All = true
	fmt.Println(d.IsZero(), d)
	// Output:
	// true none stated
	// false all
}

// Tighter keeps the more restrictive limit; -1 is "no limit".
func ExampleLimit_Tighter() {
	unlimited := directive.Limit{Set: true, N: -1}
	fifty := directive.Limit{Set: true, N: 50}
	fmt.Println(unlimited.Tighter(fifty).N, fifty.Tighter(directive.Limit{}).N)
	// Output: 50 50
}

// The nofollow rule is kept as it was written, for Verdict.Rule; the
// first one recorded wins.
func ExampleDirectives_NofollowRule() {
	var d directive.Directives
	d.NoFollow = true
	d.Mark(directive.NoFollow, directive.FromMeta)
	d.MarkNofollowRule("meta robots: nofollow")
	d.MarkNofollowRule("X-Robots-Tag: none")
	fmt.Println(d.NofollowRule())
	// Output: meta robots: nofollow
}
