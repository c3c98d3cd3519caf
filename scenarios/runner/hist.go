package runner

import (
	"math"
	"math/bits"
)

// hist is a log-linear histogram of non-negative integers (nanoseconds): values below 128
// are exact, larger ones fall in buckets of 1/64 of their power of two, so a percentile is
// exact to within 1.6% whatever the number of samples, in constant memory.
type hist struct {
	counts []uint64 // count per bucket, grown to the largest bucket seen (at most ~3.7k)
	n      uint64
	max    int64
}

const histSub = 64 // buckets per power of two above 128

func bucketOfValue(v int64) int {
	if v < 2*histSub {
		return int(max(v, 0))
	}
	e := bits.Len64(uint64(v)) - 1 // v in [2^e, 2^(e+1))
	sub := int(uint64(v)>>(uint(e)-6)) & (histSub - 1)
	return 2*histSub + (e-7)*histSub + sub
}

// bucketUpper is the largest value a bucket holds.
func bucketUpper(b int) int64 {
	if b < 2*histSub {
		return int64(b)
	}
	e := (b-2*histSub)/histSub + 7
	sub := (b - 2*histSub) % histSub
	lo := int64(1)<<uint(e) + int64(sub)<<uint(e-6)
	return lo + int64(1)<<uint(e-6) - 1
}

func (h *hist) add(v int64) {
	b := bucketOfValue(v)
	if b >= len(h.counts) {
		h.counts = append(h.counts, make([]uint64, b+1-len(h.counts))...)
	}
	h.counts[b]++
	h.n++
	h.max = max(h.max, v)
}

// quantile returns the upper bound of the bucket holding the p-th percentile (0 < p <= 100),
// capped at the largest value seen; 0 when empty.
func (h *hist) quantile(p float64) int64 {
	if h.n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(p / 100 * float64(h.n)))
	rank = max(rank, 1)
	var seen uint64
	for b, c := range h.counts {
		seen += c
		if c > 0 && seen >= rank {
			return min(bucketUpper(b), h.max)
		}
	}
	return h.max
}
