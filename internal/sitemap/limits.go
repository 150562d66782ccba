package sitemap

// withDefaults returns l with its zero (or negative) fields set to their
// defaults.
func withDefaults(l Limits) Limits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.FileURLs, MaxFileURLs)
	def(&l.Depth, DefaultMaxDepth)
	def(&l.Sitemaps, DefaultMaxSitemaps)
	def(&l.Entries, DefaultMaxEntries)
	if l.FileBytes <= 0 {
		l.FileBytes = MaxFileBytes
	}
	if l.FileTime <= 0 {
		l.FileTime = DefaultMaxFileTime
	}
	return l
}
