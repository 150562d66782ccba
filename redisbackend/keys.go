package redisbackend

import "strings"

// keys builds the Redis keys of one Backend. Every per-origin and per-host
// key carries the host in a hash tag ({host}), so that the keys a script
// touches together (an origin's lease and record) map to one Redis
// Cluster slot, and all of a host's keys live on one node.
type keys struct {
	prefix string
}

// record is the key of origin's record.
func (k keys) record(origin string) string {
	return k.prefix + tag(hostOfOrigin(origin)) + ":rec:" + origin
}

// lease is the key of origin's fetch lease.
func (k keys) lease(origin string) string {
	return k.prefix + tag(hostOfOrigin(origin)) + ":lease:" + origin
}

// pace is the key of host's pace (host in URL.Host form, port included).
func (k keys) pace(host string) string {
	return k.prefix + tag(host) + ":pace"
}

// queue is the key of host's queue (backend.Queuer), beside its pace.
func (k keys) queue(host string) string {
	return k.prefix + tag(host) + ":queue"
}

// fleet is the key of the heartbeat set. It is the one key without a
// host, alone in its slot.
func (k keys) fleet() string {
	return k.prefix + "fleet"
}

// purges is the key of the purge log (Forget). Like the fleet set it has
// no host, and is alone in its slot.
func (k keys) purges() string {
	return k.prefix + "purges"
}

// pause is the key of host's back-off (backend.Pauser).
func (k keys) pause(host string) string {
	return k.prefix + tag(host) + ":pause"
}

// pauses is the key of the index of hosts with a back-off. Like the
// fleet set it has no host, and is alone in its slot.
func (k keys) pauses() string {
	return k.prefix + "pauses"
}

// pauseLog is the key of the log of pauses begun (backend.PauseWatcher).
// Like the index it has no host, and is alone in its slot.
func (k keys) pauseLog() string {
	return k.prefix + "pauselog"
}

// hostOfOrigin returns the host (with port) of an origin such as
// "https://example.com:8443": what follows "://", up to a path if any.
func hostOfOrigin(origin string) string {
	if i := strings.Index(origin, "://"); i >= 0 {
		origin = origin[i+3:]
	}
	if i := strings.IndexByte(origin, '/'); i >= 0 {
		origin = origin[:i]
	}
	return origin
}

// tag returns host as a hash tag, "{host}". Redis hashes what lies
// between the first '{' and the next '}', so braces in host would cut the
// tag short; they are escaped, and '%' with them, so that distinct hosts
// keep distinct tags. An empty host gets the tag "{-}" rather than "{}",
// which Redis would not treat as a tag.
func tag(host string) string {
	if host == "" {
		return "{-}"
	}
	if strings.ContainsAny(host, "{}%") {
		host = strings.NewReplacer("%", "%25", "{", "%7B", "}", "%7D").Replace(host)
	}
	return "{" + host + "}"
}
