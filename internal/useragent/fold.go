package useragent

// This file compares ASCII strings without regard to case.

// ContainsFold reports whether s contains sub, ASCII case-insensitively (the
// logger uses it to tell whether a User-Agent carries the token in force).
func ContainsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if equalFoldString(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// equalFoldString compares ASCII case-insensitively.
func equalFoldString(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if lower(a[i]) != lower(b[i]) {
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
