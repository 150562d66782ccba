package directives

import (
	"strings"
	"testing"
	"time"
)

// checkDirectives fails t when d holds a value the parser may never give.
func checkDirectives(t *testing.T, d Directives) {
	t.Helper()
	if d.MaxSnippet.N < -1 || d.MaxVideoPreview.N < -1 || (!d.MaxSnippet.Set && d.MaxSnippet.N != 0) {
		t.Fatalf("limit out of range: %+v", d)
	}
	if d.MaxImagePreview > ImagePreviewLarge {
		t.Fatalf("image preview out of range: %+v", d)
	}
	if !d.UnavailableAfter.IsZero() && d.UnavailableAfter.Location() != time.UTC {
		t.Fatalf("date not in UTC: %v", d.UnavailableAfter)
	}
	if d.NoFollow != (d.NofollowRule() != "") || d.NoFollow != (d.From(NoFollow) != 0) {
		t.Fatalf("nofollow without its source or rule: %+v", d)
	}
	if d.NoAI != (d.From(NoAI) != 0) || d.NoImageAI != (d.From(NoImageAI) != 0) {
		t.Fatalf("noai or noimageai without its source: %+v", d)
	}
}

// FuzzXRobotsTag checks that header values never panic, give values in
// range, and that several headers read as the rules of each added up.
func FuzzXRobotsTag(f *testing.F) {
	for _, s := range []string{"nofollow", "demobot: none", "otherbot: nofollow, demobot: noindex",
		"max-snippet: 50, max-image-preview:large", "unavailable_after: Wednesday, 03-Nov-2027 15:00:00 GMT, nofollow",
		"unavailable_after: 25 Jun 2010 15:00:00 PST", "nofollowing", "a:b:c:,,:", "noai, demobot: noimageai"} {
		f.Add(s, "noarchive")
	}
	f.Fuzz(func(t *testing.T, v1, v2 string) {
		d1 := ParseXRobotsTag("DemoBot", v1)
		d2 := ParseXRobotsTag("DemoBot", v2)
		both := ParseXRobotsTag("DemoBot", v1, v2)
		checkDirectives(t, both)
		d1.Add(d2)
		if d1 != both {
			t.Fatalf("two headers %q, %q read as\n%+v, each added up as\n%+v", v1, v2, both, d1)
		}
	})
}

// FuzzMetaRobots checks that HTML never panics the head scan, and that a
// content attribute reads as the same rules in any head.
func FuzzMetaRobots(f *testing.F) {
	for _, s := range []string{`<html><head><meta name="robots" content="nofollow"></head>`,
		`<!-- x --><script>"<meta name=robots content=none>"</script><meta name=demobot content='noindex'>`,
		`<title><b></title><meta content="x" name="robots"`, `<head><meta name="robots" content="noindex&#44;nofollow">`} {
		f.Add([]byte(s), "noindex, max-snippet:3")
	}
	f.Fuzz(func(t *testing.T, html []byte, content string) {
		checkDirectives(t, ParseMetaRobots("DemoBot", html))
		if len(content) > maxDirectiveValue || strings.ContainsAny(content, "\"&") {
			return
		}
		page := `<html><head><title>x</title><meta name="robots" content="` + content + `"></head><body>`
		var want Directives
		readList(&want, content, metaRobots, FromMeta, false)
		if got := ParseMetaRobots("DemoBot", []byte(page)); got != want {
			t.Fatalf("content %q read as\n%+v in a page, as\n%+v alone", content, got, want)
		}
	})
}
