package useragent

// This file remembers which User-Agents a crawl's requests carried have
// been judged, so that each is judged (and warned about) once, in bounded
// memory.

import (
	"sync"
	"sync/atomic"
)

// MaxJudged bounds the distinct User-Agents a Judged remembers: a crawl
// that rotates more than this many is told once, and those after are not
// judged (each costs a map entry of its length).
const MaxJudged = 64

// Judged is the set of User-Agents judged so far, at most MaxJudged of
// them. Its zero value is empty and ready; it is safe for concurrent use.
type Judged struct {
	// last is the User-Agent seen last: seeing it again costs one
	// atomic load and a string compare.
	last atomic.Pointer[string]

	mu   sync.Mutex
	seen map[string]struct{} // guarded by mu: at most MaxJudged
	full bool                // guarded by mu: MaxJudged was reached and told
}

// See records ua and says what to do about it: judge is true the first
// time ua is seen while there is room for it; full is true once, for the
// first User-Agent that finds the set at MaxJudged (the caller says the
// others go unjudged). A User-Agent seen before gives neither.
func (j *Judged) See(ua string) (judge, full bool) {
	if p := j.last.Load(); p != nil && *p == ua {
		return false, false
	}
	return j.seeNew(ua)
}

// seeNew is See for a User-Agent other than the last; apart, so that
// only here does ua escape (See's fast path allocates nothing).
func (j *Judged) seeNew(ua string) (judge, full bool) {
	j.last.Store(&ua)
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, ok := j.seen[ua]; ok {
		return false, false
	}
	if len(j.seen) >= MaxJudged {
		told := j.full
		j.full = true
		return false, !told
	}
	if j.seen == nil {
		j.seen = make(map[string]struct{})
	}
	j.seen[ua] = struct{}{}
	return true, false
}

// Len returns the number of User-Agents remembered.
func (j *Judged) Len() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.seen)
}
