package sitemap

import (
	"net/url"
	"strings"
)

// clean returns u with the dot segments of its path resolved (RFC 3986
// §5.2.4), "." and ".." also percent-encoded in any case ("%2e",
// ".%2E"), so that the location rule judges the path a client fetches;
// u itself when it has none.
func clean(u *url.URL) *url.URL {
	p := u.EscapedPath()
	segs := strings.Split(p, "/")
	dots := false
	for _, s := range segs {
		dots = dots || dotKind(s) > 0
	}
	if !dots {
		return u
	}
	out := make([]string, 0, len(segs))
	for i, s := range segs {
		last := i == len(segs)-1
		switch dotKind(s) {
		case 1:
		case 2:
			if len(out) > 1 {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, s)
			continue
		}
		if last {
			out = append(out, "") // "/a/." and "/a/b/.." end in a '/'
		}
	}
	if len(out) == 0 || out[0] != "" {
		out = append([]string{""}, out...) // an absolute path stays one
	}
	c := *u
	c.RawPath = strings.Join(out, "/")
	if dec, err := url.PathUnescape(c.RawPath); err == nil {
		c.Path = dec
	}
	return &c
}

// dotKind is 1 for a "." segment, 2 for "..", percent-encoded or not;
// 0 for another.
func dotKind(s string) int {
	if len(s) > 6 || !strings.ContainsRune(s, '.') && !strings.Contains(strings.ToLower(s), "%2e") {
		return 0
	}
	switch strings.ReplaceAll(strings.ToLower(s), "%2e", ".") {
	case ".":
		return 1
	case "..":
		return 2
	}
	return 0
}
