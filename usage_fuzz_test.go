package robotsext

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/robotsext/robotsext/internal/directives"
	"github.com/robotsext/robotsext/internal/tdmrep"
)

// FuzzPageSignals reads what a response says about its use, from its
// headers and its head, as the hooks and Page do: nothing panics; reading
// the TDMRep meta tags changes none of the directives; every statement
// comes from the page, with no line; the statement in force for a key is
// the most restrictive of its statements; and a refusal names what
// refused.
func FuzzPageSignals(f *testing.F) {
	f.Add("train-ai=n", "search=yes, ai-train=no", "1", "noai, demobot: noimageai", false,
		[]byte(`<html><head><meta name="tdm-reservation" content="1"><meta name="tdm-policy" content="https://p.example/"><meta name="robots" content="noai"></head>`))
	f.Add("", "", "0, 1", "noimageai", true, []byte{})
	f.Add("Train-AI=n", "ai-train=maybe", "2", "otherbot: noai", false, []byte(`<meta name="TDM-Reservation" content=" 1 "><meta name=demobot content=noimageai>`))
	e := Apply(nil, quiet(), WithUserAgent("DemoBot"), WithPurpose(PurposeTrainAI))
	u, _ := url.Parse("http://a.example/page")
	f.Fuzz(func(t *testing.T, usage, signal, reservation, xrt string, image bool, html []byte) {
		h := http.Header{}
		for k, v := range map[string]string{"Content-Usage": usage, "Content-Signal": signal, "Tdm-Reservation": reservation, "X-Robots-Tag": xrt} {
			if v != "" {
				h.Set(k, v)
			}
		}
		ct := "text/html"
		if image {
			ct = "image/png"
		}
		h.Set("Content-Type", ct)
		var meta tdmrep.Declaration
		d := directives.Read("DemoBot", h, html, &meta)
		if plain := ReadDirectives("DemoBot", h, html); plain != d {
			t.Fatalf("reading the TDMRep meta tags changed the directives: %+v, %+v", d, plain)
		}
		if meta.Reservation > tdmrep.Reserved || meta.Reservation != tdmrep.Unset && meta.From != tdmrep.TechniqueMeta {
			t.Fatalf("meta declaration %+v", meta)
		}
		pr := &pageRead{h: h, dirs: d, meta: meta, image: image}
		got, rule, decl := e.usageFor(nil, nil, u, pr)
		if decl.Reservation != tdmrep.Unset && decl.From == tdmrep.TechniqueFile {
			t.Fatalf("a file's declaration without a file: %+v", decl)
		}
		for _, s := range got.All() {
			if s.Key == "" || s.Line != 0 || s.Source < SourceContentUsageHeader || s.Source > SourceMetaRobots || s.Source == SourceTDMRepFile {
				t.Fatalf("statement %+v from a page", s)
			}
			if in := got.Lookup(s.Key); in.Preference < s.Preference {
				t.Fatalf("in force for %q: %v, yet %v", s.Key, in, s)
			}
		}
		if s, no := got.refuses(e.cfg.purposes); no {
			if _, name := (refusal{file: rule, h: h, dirs: d}).name(s); name == "" {
				t.Fatalf("refused by %+v, named by nothing", s)
			}
		}
	})
}
