package main

import (
	"net/url"
	"strings"
)

// redacted is what a credential of -redis is printed as.
const redacted = "xxxxx"

// redact returns msg with the credentials of the -redis value addr (the
// user name and password of a redis://, rediss:// or unix:// URL) replaced
// by xxxxx, wherever they occur: as typed, percent-decoded and
// percent-encoded, since a message may quote the URL or a part of it. A
// user name is a secret too (Redis ACL users are often named for the
// service); "default", the name Redis gives the password-only user, is
// left as it is.
func redact(msg, addr string) string {
	for _, s := range credentials(addr) {
		msg = strings.ReplaceAll(msg, s, redacted)
	}
	return msg
}

// credentials returns the user information of addr, and its parts, in
// every spelling a message may hold, longest first.
func credentials(addr string) []string {
	_, rest, ok := strings.Cut(addr, "://")
	if !ok {
		return nil
	}
	// The user information ends at the last '@' before the path: a
	// password typed with a raw '@' or '/' is still all of it.
	at := strings.LastIndexByte(rest, '@')
	if at < 0 {
		return nil
	}
	info := rest[:at]
	user, pass, _ := strings.Cut(info, ":")
	var out []string
	add := func(s string) {
		if s == "" || s == "default" {
			return
		}
		for _, v := range []string{s, url.PathEscape(s), url.QueryEscape(s)} {
			out = append(out, v)
			if d, err := url.PathUnescape(v); err == nil {
				out = append(out, d)
			}
		}
	}
	add(info)
	add(pass)
	add(user)
	// Longest first, so that a part never breaks a longer spelling.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && len(out[j]) > len(out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
