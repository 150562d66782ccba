package robotstxt

import (
	"fmt"
	"strings"
	"testing"
)

// TestSearchAgentKeys: the search that compares the first eight octets of
// agent tokens as integers finds the groups of every token the file names,
// in any case, and none for tokens that differ in one octet, are longer or
// shorter, or hold octets outside US-ASCII: tokens that share their first
// eight octets, tokens of 1 to 20 octets, and tokens at the very end of
// the text (no sitemap after them), where fewer than eight octets follow
// their start. Files below and above manyAgents take the two searches.
func TestSearchAgentKeys(t *testing.T) {
	t.Parallel()
	base := []string{"a", "ab", "abc", "abcd", "bot", "googlebot", "googlebot-news", "googlebot-image",
		"googlebo", "googleboz", "mediapartners-google", "facebookexternalhit", "z", "abcdefgh", "abcdefghi", "zz_z"}
	for _, many := range []bool{false, true} {
		names := append([]string(nil), base...)
		if many {
			for i := range manyAgents {
				names = append(names, fmt.Sprintf("filler%c%c", 'a'+i%26, 'a'+i/26))
			}
		}
		var sb strings.Builder
		for i, name := range names {
			fmt.Fprintf(&sb, "User-agent: %s\nDisallow: /g%d\n\n", name, i)
		}
		sb.WriteString("User-agent: *\nDisallow: /all\n")
		p := parsePolicy([]byte(sb.String()))
		line := map[string]int{} // token -> line of its group
		for i, name := range names {
			line[name] = 3*i + 1
		}
		var queries []string
		for _, name := range base {
			queries = append(queries, name, strings.ToUpper(name), name[:len(name)-1], name+"x", name[:len(name)-1]+"\x80", "-"+name)
		}
		for _, q := range queries {
			want, named := line[strings.ToLower(q)]
			if strings.IndexByte(q, 0x80) >= 0 {
				want, named = 0, false
			}
			lines, specific := p.Groups(q)
			sel, _ := p.SelectBare(q)
			switch {
			case specific != named:
				t.Errorf("many=%v: Groups(%q) specific = %v, want %v", many, q, specific, named)
			case named && (len(lines) != 1 || lines[0] != want):
				t.Errorf("many=%v: Groups(%q) = %v, want [%d]", many, q, lines, want)
			case sel != p.Select(q):
				t.Errorf("many=%v: SelectBare(%q) = %v, Select says %v", many, q, sel, p.Select(q))
			}
		}
	}
}
