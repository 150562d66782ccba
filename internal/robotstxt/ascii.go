package robotstxt

// This file holds the ASCII helpers of the parser and the matcher: white
// space as C's isspace sees it, and case folding of ASCII letters only.

// isSpace reports ASCII white space as C's isspace does.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// trimSpace cuts the white space isSpace reports from both ends of s.
func trimSpace(s []byte) []byte {
	for len(s) > 0 && isSpace(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && isSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

// equalFold compares ASCII case-insensitively.
func equalFold(s []byte, t string) bool {
	if len(s) != len(t) {
		return false
	}
	for i := range len(s) {
		if lower(s[i]) != lower(t[i]) {
			return false
		}
	}
	return true
}

// lower folds an ASCII upper-case letter to lower case.
func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// cutPrefixFold is bytes.CutPrefix comparing ASCII case-insensitively.
func cutPrefixFold(s []byte, prefix string) ([]byte, bool) {
	if len(s) < len(prefix) || !equalFold(s[:len(prefix)], prefix) {
		return s, false
	}
	return s[len(prefix):], true
}
