package sitemap

import "sync"

// Totals adds up the Counts of many walks; it is safe for concurrent use
// and its zero value is ready.
type Totals struct {
	mu sync.Mutex
	n  Counts // guarded by mu
}

// Add adds one walk's counts.
func (t *Totals) Add(c Counts) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.n.Sitemaps += c.Sitemaps
	t.n.Failed += c.Failed
	t.n.Entries += c.Entries
	t.n.Outside += c.Outside
	t.n.Skipped += c.Skipped
	t.n.Loops += c.Loops
	t.n.Duplicates += c.Duplicates
	t.n.Cut += c.Cut
	t.n.Unchanged += c.Unchanged
}

// Snapshot returns the sums so far.
func (t *Totals) Snapshot() Counts {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.n
}
