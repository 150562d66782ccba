package robotstxt

// This file sorts a group's literal rules by the first sixteen octets of
// their patterns with a radix sort: a large file's thousands of rules cost
// a few passes over an array instead of a comparison call per step.

// radixSort sorts rs by (key, next), stably, with one counting pass per
// octet of the keys, least significant first; an octet that every rule
// shares costs its count alone. tmp is scratch of len(rs).
func radixSort(rs, tmp []keyedRule) {
	src, dst := rs, tmp
	for pass := range 16 {
		digit := func(k *keyedRule) int {
			if pass < 8 {
				return int(k.next >> (8 * pass) & 0xff)
			}
			return int(k.key >> (8 * (pass - 8)) & 0xff)
		}
		var count [257]int
		for i := range src {
			count[digit(&src[i])+1]++
		}
		if count[digit(&src[0])+1] == len(src) {
			continue // every rule has this octet
		}
		for c := 1; c < len(count); c++ {
			count[c] += count[c-1]
		}
		for i := range src {
			d := digit(&src[i])
			dst[count[d]] = src[i]
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &rs[0] {
		copy(rs, src)
	}
}
