package directives

// This file reads one comma-separated list of rules, as an X-Robots-Tag
// value or a robots meta tag's content writes it.

import (
	"strconv"
	"strings"
	"time"
)

// readList reads one comma-separated list of rules from src. scope is
// the name the rules apply under ("robots" or the token for meta tags,
// "" for an unscoped header); scoped reports a header value, where a
// "name:" prefix may scope the rules after it.
func readList(d *Directives, v, token string, src Source, header bool) {
	if len(v) > maxDirectiveValue {
		v = v[:maxDirectiveValue]
	}
	scope := "" // header: the scope in force, as written
	applies := true
	if !header {
		scope = token // the meta name as written
	}
	for len(v) > 0 {
		item, rest, _ := strings.Cut(v, ",")
		v = rest
		item = trimOWS(item)
		if header {
			if name, after, ok := strings.Cut(item, ":"); ok {
				if n := trimOWS(name); isScopeName(n) {
					scope = n
					applies = strings.EqualFold(n, token)
					item = trimOWS(after)
				}
			}
		}
		if name, arg, ok := strings.Cut(item, ":"); ok && strings.EqualFold(trimOWS(name), "unavailable_after") {
			// A date may hold commas: take the longest run of items
			// that reads as one.
			arg = trimOWS(arg)
			t, ok := parseDirectiveDate(arg)
			extra := v
			for range 2 {
				more, after, found := strings.Cut(extra, ",")
				if !found && more == "" {
					break
				}
				cand := arg + "," + more
				if t2, ok2 := parseDirectiveDate(trimOWS(cand)); ok2 {
					t, ok, arg, v = t2, true, cand, after
					if !found {
						v = ""
					}
				} else {
					arg = cand
				}
				if !found {
					break
				}
				extra = after
			}
			if ok && applies {
				unavailableAfter(d, t, src)
			}
			continue
		}
		if applies {
			rule(d, item, src, scope, header)
		}
	}
}

// isScopeName reports whether n, written before a colon in a header
// value, names a crawler rather than a rule with a parameter.
func isScopeName(n string) bool {
	if n == "" {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	for _, r := range [...]string{"max-snippet", "max-image-preview", "max-video-preview", "unavailable_after"} {
		if strings.EqualFold(n, r) {
			return false
		}
	}
	return true
}

// rule applies one rule (not unavailable_after) as written.
func rule(d *Directives, item string, src Source, scope string, header bool) {
	name, arg, hasArg := strings.Cut(item, ":")
	if hasArg {
		name, arg = trimOWS(name), trimOWS(arg)
		switch {
		case strings.EqualFold(name, "max-snippet"):
			if l, ok := parseLimit(arg); ok {
				d.MaxSnippet = d.MaxSnippet.Tighter(l)
				d.Mark(MaxSnippet, src)
			}
		case strings.EqualFold(name, "max-video-preview"):
			if l, ok := parseLimit(arg); ok {
				d.MaxVideoPreview = d.MaxVideoPreview.Tighter(l)
				d.Mark(MaxVideoPreview, src)
			}
		case strings.EqualFold(name, "max-image-preview"):
			p := ImagePreviewUnstated
			switch {
			case strings.EqualFold(arg, "none"):
				p = ImagePreviewNone
			case strings.EqualFold(arg, "standard"):
				p = ImagePreviewStandard
			case strings.EqualFold(arg, "large"):
				p = ImagePreviewLarge
			}
			if p != ImagePreviewUnstated {
				if d.MaxImagePreview == ImagePreviewUnstated || p < d.MaxImagePreview {
					d.MaxImagePreview = p
				}
				d.Mark(MaxImagePreview, src)
			}
		}
		return
	}
	switch {
	case strings.EqualFold(item, "all"):
		d.All = true
	case strings.EqualFold(item, "none"):
		d.NoIndex, d.NoFollow = true, true
		d.Mark(NoIndex, src)
		d.Mark(NoFollow, src)
		noteNofollow(d, src, scope, header, "none")
	case strings.EqualFold(item, "noindex"):
		d.NoIndex = true
		d.Mark(NoIndex, src)
	case strings.EqualFold(item, "nofollow"):
		d.NoFollow = true
		d.Mark(NoFollow, src)
		noteNofollow(d, src, scope, header, "nofollow")
	case strings.EqualFold(item, "noarchive"), strings.EqualFold(item, "nocache"):
		d.NoArchive = true
		d.Mark(NoArchive, src)
	case strings.EqualFold(item, "nosnippet"):
		d.NoSnippet = true
		d.Mark(NoSnippet, src)
	case strings.EqualFold(item, "noimageindex"):
		d.NoImageIndex = true
		d.Mark(NoImageIndex, src)
	case strings.EqualFold(item, "notranslate"):
		d.NoTranslate = true
		d.Mark(NoTranslate, src)
	case strings.EqualFold(item, "indexifembedded"):
		d.IndexIfEmbedded = true
		d.Mark(IndexIfEmbedded, src)
	case strings.EqualFold(item, "noai"):
		d.NoAI = true
		d.Mark(NoAI, src)
	case strings.EqualFold(item, "noimageai"):
		d.NoImageAI = true
		d.Mark(NoImageAI, src)
	}
}

// noteNofollow remembers the first rule that said nofollow or none.
func noteNofollow(d *Directives, src Source, scope string, header bool, word string) {
	if d.NofollowRule() != "" {
		return
	}
	switch {
	case header && scope != "":
		d.MarkNofollowRule(HeaderName + ": " + scope + ": " + word)
	case header:
		d.MarkNofollowRule(HeaderName + ": " + word)
	default:
		d.MarkNofollowRule("meta " + strings.ToLower(scope) + ": " + word) // a new string: scope may share the body's memory
	}
}

// unavailableAfter applies an unavailable_after date: the earliest wins.
func unavailableAfter(d *Directives, t time.Time, src Source) {
	if d.UnavailableAfter.IsZero() || t.Before(d.UnavailableAfter) {
		d.UnavailableAfter = t
	}
	d.Mark(UnavailableAfter, src)
}

// parseLimit reads a max-snippet or max-video-preview value: an integer of
// at least -1 that fits 32 bits.
func parseLimit(s string) (Limit, bool) {
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil || n < -1 {
		return Limit{}, false
	}
	return Limit{Set: true, N: int(n)}, true
}

// trimOWS trims ASCII spaces and tabs (and the other ASCII white space)
// without looking at Unicode.
func trimOWS(s string) string {
	for len(s) > 0 && isASCIISpace(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && isASCIISpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

func isASCIISpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}
