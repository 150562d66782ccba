package robotsext

import "sync"

// ClaimExport lets a metrics adapter refuse to export e's counters twice
// to one place, which would report every value twice: it claims key for e
// and reports true, or reports false when key is claimed already. release
// frees the claim (the adapter stops exporting); calling it again does
// nothing. key must be comparable (a pointer, or a struct of pointers and
// values); an uncomparable key is never claimed and always gets true.
//
// robotsprom relies on Prometheus's registry for this; robotsotel, whose
// MeterProvider keeps no such record, claims its MeterProvider and
// attribute set here.
func (e *Extension) ClaimExport(key any) (release func(), ok bool) {
	if !isComparable(key) {
		return func() {}, true
	}
	if _, loaded := e.exports.LoadOrStore(key, struct{}{}); loaded {
		return nil, false
	}
	var once sync.Once
	return func() { once.Do(func() { e.exports.Delete(key) }) }, true
}

// isComparable reports whether k can be a map key without a panic.
func isComparable(k any) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	_ = k == k
	return true
}
