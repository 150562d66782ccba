package directives

import (
	"net/http"
	"testing"
	"time"
)

func TestParseXRobotsTag(t *testing.T) {
	t.Parallel()
	date := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	tests := []struct {
		name   string
		values []string
		want   Directives
	}{
		{"empty", nil, Directives{}},
		{"nofollow", []string{"nofollow"}, Directives{NoFollow: true}},
		{"case", []string{"NoFollow, NOINDEX"}, Directives{NoFollow: true, NoIndex: true}},
		{"none", []string{"none"}, Directives{NoFollow: true, NoIndex: true}},
		{"all", []string{"all"}, Directives{All: true}},
		{"all does not cancel", []string{"all", "noindex"}, Directives{All: true, NoIndex: true}},
		{"our scope", []string{"demobot: nofollow"}, Directives{NoFollow: true}},
		{"our scope any case", []string{"DEMOBOT: nofollow, noarchive"}, Directives{NoFollow: true, NoArchive: true}},
		{"other scope", []string{"otherbot: nofollow"}, Directives{}},
		{"other scope list", []string{"otherbot: noindex, nofollow"}, Directives{}},
		{"several headers add up", []string{"noarchive", "demobot: noindex", "otherbot: nofollow"},
			Directives{NoArchive: true, NoIndex: true}},
		{"merged scopes", []string{"otherbot: nofollow, demobot: noindex"}, Directives{NoIndex: true}},
		{"look-alike", []string{"nofollowing, no-index, noindex2, nofollow-ish"}, Directives{}},
		{"max-snippet with space is a rule not a scope", []string{"max-snippet: 50"},
			Directives{MaxSnippet: Limit{Set: true, N: 50}}},
		{"max-snippet tight", []string{"max-snippet:50", "max-snippet:-1", "max-snippet:20"},
			Directives{MaxSnippet: Limit{Set: true, N: 20}}},
		{"max-snippet -1", []string{"max-snippet:-1"}, Directives{MaxSnippet: Limit{Set: true, N: -1}}},
		{"max-snippet bad", []string{"max-snippet:50px, max-snippet:-2, max-snippet:99999999999"}, Directives{}},
		{"max-video-preview", []string{"max-video-preview: 0"}, Directives{MaxVideoPreview: Limit{Set: true, N: 0}}},
		{"max-image-preview", []string{"max-image-preview:large", "max-image-preview:standard"},
			Directives{MaxImagePreview: ImagePreviewStandard}},
		{"max-image-preview bad", []string{"max-image-preview:huge"}, Directives{}},
		{"scoped parameter", []string{"demobot: max-snippet: 10"}, Directives{MaxSnippet: Limit{Set: true, N: 10}}},
		{"noai", []string{"noai"}, Directives{NoAI: true}},
		{"noimageai, scoped", []string{"otherbot: noai", "DemoBot: NoImageAI"}, Directives{NoImageAI: true}},
		{"noai look-alikes", []string{"no-ai, noai2, noimage-ai, ai"}, Directives{}},
		{"others", []string{"nosnippet, noimageindex, notranslate, indexifembedded, nocache"},
			Directives{NoSnippet: true, NoImageIndex: true, NoTranslate: true, IndexIfEmbedded: true, NoArchive: true}},
		{"rfc 850 date", []string{"unavailable_after: Wednesday, 03-Nov-2027 15:00:00 GMT, nofollow"},
			Directives{UnavailableAfter: date("2027-11-03T15:00:00Z"), NoFollow: true}},
		{"rfc 822 date", []string{"noindex, unavailable_after: Wed, 03 Nov 2027 15:00:00 PST"},
			Directives{NoIndex: true, UnavailableAfter: date("2027-11-03T23:00:00Z")}},
		{"google's example", []string{"unavailable_after: 25 Jun 2010 15:00:00 PST"},
			Directives{UnavailableAfter: date("2010-06-25T23:00:00Z")}},
		{"numeric zone", []string{"unavailable_after: 25 Jun 2010 15:00:00 +0200"},
			Directives{UnavailableAfter: date("2010-06-25T13:00:00Z")}},
		{"iso date", []string{"unavailable_after: 2027-11-03"}, Directives{UnavailableAfter: date("2027-11-03T00:00:00Z")}},
		{"iso time", []string{"unavailable_after: 2027-11-03T15:00:00+01:00, noarchive"},
			Directives{UnavailableAfter: date("2027-11-03T14:00:00Z"), NoArchive: true}},
		{"earliest date", []string{"unavailable_after: 2027-11-03", "demobot: unavailable_after: 2026-01-01"},
			Directives{UnavailableAfter: date("2026-01-01T00:00:00Z")}},
		{"other bot's date", []string{"otherbot: unavailable_after: 2026-01-01"}, Directives{}},
		{"unknown zone is not guessed", []string{"unavailable_after: 25 Jun 2010 15:00:00 XYZ, nofollow"},
			Directives{NoFollow: true}},
		{"bad date", []string{"unavailable_after: soon, noindex"}, Directives{NoIndex: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := ParseXRobotsTag("DemoBot", tt.values...)
			got = stated(got)
			if got != tt.want {
				t.Errorf("ParseXRobotsTag(%q) =\n%+v, want\n%+v", tt.values, got, tt.want)
			}
		})
	}
}

func TestParseMetaRobots(t *testing.T) {
	t.Parallel()
	page := func(head string) []byte {
		return []byte("<!DOCTYPE html><html><head><title>t <b></title>" + head + "</head><body><meta name=robots content=noindex></body></html>")
	}
	tests := []struct {
		name string
		html []byte
		want Directives
		rule string
	}{
		{"none said", page(`<meta charset="utf-8"><meta name="viewport" content="width=device-width">`), Directives{}, ""},
		{"robots", page(`<meta name="robots" content="noindex, nofollow">`), Directives{NoIndex: true, NoFollow: true}, "meta robots: nofollow"},
		{"case", page(`<META NAME="Robots" CONTENT="NoFollow">`), Directives{NoFollow: true}, "meta robots: nofollow"},
		{"our token", page(`<meta name="DemoBot" content="none">`), Directives{NoIndex: true, NoFollow: true}, "meta demobot: none"},
		{"other token", page(`<meta name="otherbot" content="nofollow">`), Directives{}, ""},
		{"add up", page(`<meta name="robots" content="noarchive"><meta name="demobot" content="nofollow">`),
			Directives{NoArchive: true, NoFollow: true}, "meta demobot: nofollow"},
		{"single quotes and unquoted", page(`<meta content='nofollow' name=robots />`), Directives{NoFollow: true}, "meta robots: nofollow"},
		{"entities", page(`<meta name="robots" content="noindex&#44; nofollow">`), Directives{NoIndex: true, NoFollow: true}, "meta robots: nofollow"},
		{"look-alike", page(`<meta name="robots" content="nofollowing">`), Directives{}, ""},
		{"noai and noimageai", page(`<meta name="robots" content="noai, noimageai">`), Directives{NoAI: true, NoImageAI: true}, ""},
		{"look-alike name", page(`<meta name="robotsx" content="nofollow"><meta property="robots" content="nofollow">`), Directives{}, ""},
		{"in a comment", page(`<!-- <meta name="robots" content="nofollow"> -->`), Directives{}, ""},
		{"in a script", page(`<script>var s = '<meta name="robots" content="nofollow">';</script>`), Directives{}, ""},
		{"after the head", []byte(`<html><head></head><body><div><meta name="robots" content="nofollow"></div></body></html>`), Directives{}, ""},
		{"body starts at a div", []byte(`<html><div>x</div><meta name="robots" content="nofollow">`), Directives{}, ""},
		{"no head tag", []byte(`<meta name="robots" content="noindex"><p>text`), Directives{NoIndex: true}, ""},
		{"attribute with >", page(`<link href="a>b" rel=x><meta name="robots" content="nofollow">`), Directives{NoFollow: true}, "meta robots: nofollow"},
		{"date", page(`<meta name="robots" content="unavailable_after: Wed, 03 Nov 2027 15:00:00 GMT">`),
			Directives{UnavailableAfter: time.Date(2027, 11, 3, 15, 0, 0, 0, time.UTC)}, ""},
		{"unterminated", []byte(`<html><head><meta name="robots" content="nofollow`), Directives{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := ParseMetaRobots("DemoBot", tt.html)
			if got.NofollowRule() != tt.rule {
				t.Errorf("NofollowRule() = %q, want %q", got.NofollowRule(), tt.rule)
			}
			got = stated(got)
			if got != tt.want {
				t.Errorf("ParseMetaRobots(%q) =\n%+v, want\n%+v", tt.html, got, tt.want)
			}
		})
	}
}

func TestReadDirectivesSources(t *testing.T) {
	t.Parallel()
	h := http.Header{}
	h.Add("X-Robots-Tag", "demobot: nofollow")
	h.Add("X-Robots-Tag", "noarchive")
	h.Set("Content-Type", "text/html; charset=utf-8")
	body := []byte(`<html><head><meta name="robots" content="nofollow, noindex"></head></html>`)
	d := Read("DemoBot", h, body, nil)
	if !d.NoFollow || !d.NoIndex || !d.NoArchive {
		t.Fatalf("Read = %+v, want nofollow, noindex and noarchive", d)
	}
	if got := d.From(NoFollow); got != FromXRobotsTag|FromMeta {
		t.Errorf("From(nofollow) = %v, want header+meta", got)
	}
	if got := d.From(NoIndex); got != FromMeta {
		t.Errorf("From(noindex) = %v, want meta", got)
	}
	if got := d.From(NoArchive); got != FromXRobotsTag {
		t.Errorf("From(noarchive) = %v, want header", got)
	}
	if got := d.NofollowRule(); got != "X-Robots-Tag: demobot: nofollow" {
		t.Errorf("NofollowRule() = %q", got)
	}
	h.Set("Content-Type", "application/pdf")
	if d := Read("DemoBot", h, body, nil); d.NoIndex {
		t.Errorf("meta tags read from a PDF: %+v", d)
	}
	if d := Read("DemoBot", http.Header{}, body, nil); !d.NoIndex {
		t.Errorf("meta tags of a body sniffed as HTML not read: %+v", d)
	}
}

// stated is d without what From and NofollowRule tell: the rules' fields
// alone, for comparing with a Directives literal.
func stated(d Directives) Directives {
	return Directives{All: d.All, NoIndex: d.NoIndex, NoFollow: d.NoFollow, NoArchive: d.NoArchive,
		NoSnippet: d.NoSnippet, NoImageIndex: d.NoImageIndex, NoTranslate: d.NoTranslate,
		IndexIfEmbedded: d.IndexIfEmbedded, MaxSnippet: d.MaxSnippet, MaxImagePreview: d.MaxImagePreview,
		MaxVideoPreview: d.MaxVideoPreview, UnavailableAfter: d.UnavailableAfter, NoAI: d.NoAI, NoImageAI: d.NoImageAI}
}
