package pacing

import "strings"

// HostKey is the key of a host in URL.Host form: the key of its pace, its
// claim and its pause, here and in a Backend. Host names are
// case-insensitive; the port, if any, is kept, so "a:80" and "a:8080" are
// paced apart, exactly as the origins they name are. A trailing dot of
// the name is dropped: "site.test." and "site.test" are one server to
// DNS, so they share one pace, although they are two origins with a
// robots.txt each (RFC 9309 §2.3 takes the authority as written, and a
// server may answer them differently).
func HostKey(host string) string {
	host = strings.ToLower(host)
	name, port := host, ""
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.HasSuffix(host, "]") {
		name, port = host[:i], host[i:]
	}
	if len(name) > 1 && name[len(name)-1] == '.' {
		return name[:len(name)-1] + port
	}
	return host
}
