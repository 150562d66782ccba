package robotstxt

// This file estimates the heap a parsed Policy retains, so that a cache of
// policies can be bounded in bytes rather than in entries.

import (
	"math/bits"
	"slices"
	"strings"
	"unsafe"

	"github.com/robotsext/robotsext/internal/signals"
)

// MemSize estimates the heap bytes p retains once every group's index is
// built: its own struct and every slice, string and map it holds, rounded up
// as the Go allocator rounds them. Indexes are built on first use, so until
// then it overstates p, which errs on the safe side for the cache that
// evicts by it. It is an estimate (maps are sized from their length, not
// their actual buckets) meant to be within about 15% of the truth. A nil
// *Policy retains nothing.
func (p *Policy) MemSize() int64 {
	if p == nil {
		return 0
	}
	n := allocSize(int(unsafe.Sizeof(*p)))
	n += allocSize(len(p.text))
	n += sliceSize(p.rules)
	n += sliceSize(p.groups)
	n += sliceSize(p.index)
	n += sliceSize(p.lists)
	n += sliceSize(p.agents)   // their tokens are in text
	n += sliceSize(p.sitemaps) // their URLs are in text
	n += p.indexSize()
	if len(p.agents) >= manyAgents {
		var sel Selection
		n += mapSize(len(p.agents), int(unsafe.Sizeof("")+unsafe.Sizeof(sel)))
	}
	var (
		delay = p.globalDelay
		line  int32
		off   uint32
	)
	n += mapSize(len(p.delays), int(unsafe.Sizeof("")+unsafe.Sizeof(delay)))
	for k := range p.delays {
		n += stringSize(k)
	}
	n += mapSize(len(p.raws), int(unsafe.Sizeof(line)+unsafe.Sizeof("")))
	for _, v := range p.raws {
		n += stringSize(v)
	}
	n += mapSize(len(p.long), int(2*unsafe.Sizeof(off)))
	n += p.usageSize()
	return int64(n)
}

// usageSize is what the usage lines retain, and their rules once read
// (usagerules.go): per line its value, a rule with its pattern (at most
// three octets per octet of the value) and a statement per member of its
// Dictionary (its key's octets are among the value's).
func (p *Policy) usageSize() int {
	if len(p.usageLines) == 0 {
		return 0
	}
	var (
		r usageRule
		s signals.Statement
	)
	n := sliceSize(p.usageLines) + allocSize(len(p.usageLines)*int(unsafe.Sizeof(r)))
	for _, l := range p.usageLines {
		n += stringSize(l.value) + allocSize(3*len(l.value))
		n += allocSize((strings.Count(l.value, ",")+1)*int(unsafe.Sizeof(s))) + stringSize(l.value)
	}
	return n
}

// indexSize is what building every group's index adds: the index itself
// and a litRule, a key and a parent per literal rule for each group (and
// the keys' index for large groups), and a wildRule, a mask and its bigram
// list entries per wildcard rule.
func (p *Policy) indexSize() int {
	var (
		ix     groupIndex
		lit    litRule
		w      wildRule
		parent int32
		mask   uint64
	)
	n := 0
	for _, g := range p.groups {
		n += allocSize(int(unsafe.Sizeof(ix)))
		n += allocSize(int(g.end-g.start) * int(unsafe.Sizeof(lit)))
		n += allocSize(int(g.end-g.start) * int(unsafe.Sizeof(parent)))
		// Keys and masks share an allocation; counting every rule of the
		// span once errs high by the wildcard rules' share.
		n += allocSize(int(g.end-g.start) * int(unsafe.Sizeof(mask)))
		// The keys' index, for spans of at least minLitIndex rules
		// (counting the wildcard ones errs high).
		if g.end-g.start >= minLitIndex {
			n += allocSize(257 * int(unsafe.Sizeof(parent)))
		}
	}
	// The litRules counted above for the spans' wildcard rules are none.
	n += p.wildRules * (int(unsafe.Sizeof(w)) - int(unsafe.Sizeof(lit)))
	// Buckets: their starts in each group of at least minBuckets
	// wildcard rules, and the copies of wild and masks bucketing makes.
	var start int32
	n += min(len(p.groups), p.wildRules/minBuckets) * allocSize(258*int(unsafe.Sizeof(start)))
	// Bigram lists (groups of at least minGramList wildcard rules): an
	// index per rule, and at most a key and an end per rule.
	if p.wildRules >= minGramList {
		n += p.wildRules * 3 * int(unsafe.Sizeof(start))
	}
	return n
}

// sliceSize is the heap size of s's backing array.
func sliceSize[T any](s []T) int {
	var zero T
	return allocSize(cap(s) * int(unsafe.Sizeof(zero)))
}

// stringSize is the heap size of a string's bytes allocated on their own.
// Strings under 16 bytes share 16-byte blocks (the tiny allocator), so they
// count as their length.
func stringSize(s string) int {
	if len(s) < 16 {
		return len(s)
	}
	return allocSize(len(s))
}

// mapSize estimates a map of n entries of slot bytes each (key and value):
// Go's maps keep groups of eight slots with a control word each, at most
// 7/8 full, in tables of up to 1024 slots, behind a small header.
func mapSize(n, slot int) int {
	const header = 48
	if n == 0 {
		return 0
	}
	if n <= 8 {
		return header + allocSize(8+8*slot)
	}
	slots := 1 << bits.Len(uint(n*8/7))
	tables := max(1, slots/1024)
	perTable := allocSize(slots / tables / 8 * (8 + 8*slot))
	return header + tables*(perTable+64) + allocSize(8*tables)
}

// allocSize is the heap the allocator uses for a request of n bytes.
func allocSize(n int) int {
	// The object sizes of Go's allocator up to 32 KiB; a request is
	// rounded up to the next one. Larger requests are rounded up to whole
	// 8 KiB pages.
	sizeClasses := [...]int{
		8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224,
		240, 256, 288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896,
		1024, 1152, 1280, 1408, 1536, 1792, 2048, 2304, 2688, 3072, 3200, 3456,
		4096, 4864, 5376, 6144, 6528, 6784, 6912, 8192, 9472, 9728, 10240, 10880,
		12288, 13568, 14336, 16384, 18432, 19072, 20480, 21760, 24576, 27264,
		28672, 32768,
	}
	if n <= 0 {
		return 0
	}
	if n > sizeClasses[len(sizeClasses)-1] {
		const page = 8 << 10
		return (n + page - 1) &^ (page - 1)
	}
	i, _ := slices.BinarySearch(sizeClasses[:], n)
	return sizeClasses[i]
}
