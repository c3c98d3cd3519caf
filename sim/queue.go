package sim

import "math/bits"

// entry is one queued event: 32 bytes holding its whole payload and no Go pointers, so the
// garbage collector never scans the queue and firing an event touches no memory but the
// entry itself and the small per-slot stamp table.
type entry struct {
	at    Time
	arg   uint64
	h     HandlerID
	kind  int32
	slot  uint32
	stamp uint32 // equals Kernel.slots[slot].stamp while the event is live
}

// Radix heap geometry. A key different from last lives at level L, the index of the highest
// digit in which it differs from last, in the bucket named by its own digit at that level.
// Bucket numbers L*radix+digit increase with the key, so the lowest non-empty bucket holds the
// minimum. Eight-bit digits keep the moves per event low (an entry moves at most once per
// level it descends) while a two-word bitmap finds the lowest bucket in O(1).
const (
	digitBits   = 8
	radix       = 1 << digitBits
	levels      = (63 + digitBits - 1) / digitBits // keys are non-negative int64: 63 bits
	numBuckets  = levels * radix
	maskWords   = (numBuckets + 63) / 64 // at most 64, so one summary word covers them
	level0Count = radix / 64             // mask words of the level-0 buckets, the lowest ones
	level0Words = 1<<level0Count - 1     // their bits in the summary word
	dueBucket   = numBuckets             // index of the bucket that collects due entries after a redistribution
)

// bucket is a growable array of entries. Its length lives in n, not in the slice header, so
// emptying or filling it in steady state writes no pointer (no GC write barrier). Entries are
// appended through queue.next.
type bucket struct {
	e []entry
	n int
}

// full reports whether b's array has no room for another entry; the caller then calls
// queue.grow before add. The pair is written out at each call site so that it stays inline.
func (b *bucket) full() bool { return uint(b.n) >= uint(len(b.e)) }

// add appends an entry to b, which must not be full, and returns it for the caller to fill
// in. Callers store the fields (or copy an entry) straight into the array: an entry built
// first and passed by value was copied twice through the stack.
func (b *bucket) add() *entry {
	n := b.n
	b.n = n + 1
	return &b.e[n]
}

// grow gives b a larger array holding its entries: a spare array when one is at least twice
// b's size (copying b once into an array it may fill many times over), else a new one of
// twice the size.
//
//go:noinline
func (q *queue) grow(b *bucket) {
	need := max(16, 2*len(b.e))
	var e []entry
	if need > maxRetained {
		e = q.takeSpare(need)
	}
	if e == nil {
		e = make([]entry, need)
	}
	copy(e, b.e[:b.n])
	q.release(b.e)
	b.e = e
}

// release keeps a bucket's array that it no longer uses as a spare if it is larger than
// maxRetained and there is room among the spares (the largest are kept), else lets it go.
func (q *queue) release(e []entry) {
	if cap(e) <= maxRetained {
		return
	}
	e = e[:cap(e)]
	if len(q.spare) < maxSpares {
		q.spare = append(q.spare, e)
		return
	}
	small := 0
	for i := range q.spare {
		if len(q.spare[i]) < len(q.spare[small]) {
			small = i
		}
	}
	if len(e) > len(q.spare[small]) {
		q.spare[small] = e
	}
}

// takeSpare removes and returns the largest spare array if it holds at least need entries.
func (q *queue) takeSpare(need int) []entry {
	big := -1
	for i := range q.spare {
		if len(q.spare[i]) >= need && (big < 0 || len(q.spare[i]) > len(q.spare[big])) {
			big = i
		}
	}
	if big < 0 {
		return nil
	}
	e := q.spare[big]
	last := len(q.spare) - 1
	q.spare[big] = q.spare[last]
	q.spare[last] = nil
	q.spare = q.spare[:last]
	return e
}

// queue is a radix heap over event times with FIFO order among equal times. Keys must never
// be pushed below last, the most recently extracted minimum; the kernel guarantees it because
// nothing is scheduled before the current time and last <= now. Insertion is written out in
// Kernel.Schedule, the hottest path of every model: an entry with key == last goes to the end
// of buckets[cur], any other to bucketOf(key, key^last), which is then marked.
type queue struct {
	last    Time
	head    int                    // next entry of buckets[cur] to hand out
	cur     int                    // the bucket of entries whose key equals last, in insertion order: dueBucket or a drained heap bucket
	buckets [numBuckets + 1]bucket // the heap's buckets, then dueBucket
	mask    [maskWords]uint64      // bit b set when buckets[b] is non-empty
	summary uint64                 // bit w set when mask[w] != 0
	spare   [][]entry              // arrays of more than maxRetained entries no bucket holds (at most maxSpares), full length
}

// bucketOf returns the bucket of key, given x = key ^ last != 0.
func bucketOf(key, x uint64) uint {
	level := uint(bits.Len64(x)-1) / digitBits
	return level*radix + uint(key>>(level*digitBits))%radix
}

func (q *queue) mark(b uint) {
	q.mask[b/64] |= 1 << (b % 64)
	q.summary |= 1 << (b / 64)
}

func (q *queue) unmark(b uint) {
	w := b / 64
	q.mask[w] &^= 1 << (b % 64)
	if q.mask[w] == 0 {
		q.summary &^= 1 << w
	}
}

// lowest returns the lowest non-empty bucket, or -1.
func (q *queue) lowest() int {
	if q.summary == 0 {
		return -1
	}
	w := bits.TrailingZeros64(q.summary)
	return w*64 + bits.TrailingZeros64(q.mask[w])
}

// front returns the next due entry, or nil when due is exhausted (call refill).
func (q *queue) front() *entry {
	if c := &q.buckets[q.cur]; q.head < c.n {
		return &c.e[q.head]
	}
	return nil
}

// refill moves the entries with the smallest time into due, if that time is no later than
// limit, and reports whether it did. It must only be called once due is exhausted and emptied
// (its n and head zero). When it
// reports false the heap is unchanged, so keys below the queued minimum may still be pushed.
func (q *queue) refill(limit Time) bool {
	bi := q.lowest()
	if bi < 0 {
		return false
	}
	b := uint(bi)
	src := &q.buckets[b]
	if src.n == 1 || b < radix { // one entry, or a level-0 bucket: every key in it is equal
		// The bucket becomes cur in place: relative to the new last no other key can map to
		// bucket b (last's own digit at b's level is b's digit), so it holds only due keys.
		// A level-0 bucket's keys agree with last above the lowest digit and have b's digit
		// there: they are one time, and stay in insertion order.
		if src.e[0].at > limit {
			return false
		}
		q.last = src.e[0].at
		q.cur = int(b)
		q.unmark(b)
		return true
	}
	if q.lowerBound(b) > limit { // O(1) answer for a far-away bucket: no scan
		return false
	}
	ents := src.e[:src.n]
	min := ents[0].at
	for i := 1; i < len(ents); i++ {
		min = minTime(min, ents[i].at)
	}
	if min > limit {
		return false
	}
	// Every key in bucket b agrees with last above b's level and with min at b's level, so
	// relative to min each lands in due or in a bucket below b, all of which are empty:
	// appending in order keeps equal keys in insertion order.
	// From a level-1 bucket (most redistributions: delays of 256 ns to 64 us) every other key
	// lands at level 0, in the bucket of its lowest digit; the summary bits of the buckets
	// marked are gathered and set once.
	q.last = min
	q.cur = dueBucket
	due := &q.buckets[dueBucket]
	level1 := b < 2*radix
	var summary uint64
	for i := range ents {
		e := &ents[i]
		x := uint64(e.at ^ min)
		bk := due
		if x != 0 {
			nb := uint(e.at) % radix
			if !level1 {
				nb = bucketOf(uint64(e.at), x)
			}
			bk = &q.buckets[nb]
			q.mask[nb/64] |= 1 << (nb % 64)
			summary |= 1 << (nb / 64)
		}
		if bk.full() {
			q.grow(bk)
		}
		*bk.add() = *e
	}
	q.summary |= summary
	src.n = 0
	if cap(src.e) > maxRetained {
		// A far-future bucket held a crowd once: its array becomes a spare for the next bucket
		// that grows past maxRetained rather than staying with this one forever.
		q.release(src.e)
		src.e = nil
	}
	q.unmark(b)
	return true
}

// maxRetained is the largest array (in entries, 32 KiB) an emptied bucket keeps for reuse.
// Larger ones leave the bucket when it is redistributed, so memory follows the live queue
// instead of the largest crowd each of the 2048 buckets ever held; the maxSpares largest of
// them are kept for whichever bucket grows past maxRetained next. A bucket that fills and
// drains again and again (the crowd of one timeout, the connection storm's instants) then
// reuses one large array instead of doubling from 16 entries each time: no allocation and
// one copy instead of a copy per doubling.
const (
	maxRetained = 1024
	maxSpares   = 4
)

// lowerBound returns the smallest key bucket b can hold relative to last: last's digits above
// b's level, b's digit at its level, zeros below.
func (q *queue) lowerBound(b uint) Time {
	level, digit := b/radix, uint64(b%radix)
	shift := (level + 1) * digitBits
	var prefix uint64
	if shift < 64 {
		prefix = uint64(q.last) >> shift << shift
	}
	return Time(prefix | digit<<(level*digitBits))
}

// advance raises last to t, which must satisfy last <= t <= every queued key, with the due
// bucket exhausted. Stepping the clock with RunUntil calls it, so a far-future bucket is split
// once the clock enters its range instead of being scanned again at every step. Buckets whose
// digit differs from t's at their level stay valid; the lowest bucket is redistributed while
// t shares its digit (each redistribution moves entries strictly down: amortised O(1)).
func (q *queue) advance(t Time) {
	q.buckets[q.cur].n = 0
	q.head = 0
	q.cur = dueBucket
	q.last = t
	for {
		bi := q.lowest()
		if bi < 0 {
			return
		}
		b := uint(bi)
		level := b / radix
		if uint64(t)>>(level*digitBits)%radix != uint64(b%radix) {
			return
		}
		src := &q.buckets[b]
		ents := src.e[:src.n]
		src.n = 0
		q.unmark(b)
		// Relative to t every entry of b lands strictly below b (t agrees with them down to
		// b's level), so writing into other buckets never touches ents.
		for i := range ents {
			e := &ents[i]
			bk := &q.buckets[dueBucket]
			if x := uint64(e.at ^ t); x != 0 {
				nb := bucketOf(uint64(e.at), x)
				bk = &q.buckets[nb]
				q.mark(nb)
			}
			if bk.full() {
				q.grow(bk)
			}
			*bk.add() = *e
		}
	}
}

// find returns a copy of the queued entry for (slot, stamp) due at time at. Every queued key k
// lives in the due bucket if k == last, else in bucketOf(k, k^last): buckets that are not
// redistributed stay consistent as last grows (see refill).
func (q *queue) find(at Time, slot, stamp uint32) (entry, bool) {
	b, from := q.cur, q.head
	if x := uint64(at ^ q.last); x != 0 {
		b, from = int(bucketOf(uint64(at), x)), 0
	}
	bk := &q.buckets[b]
	for i := from; i < bk.n; i++ {
		if e := &bk.e[i]; e.slot == slot && e.stamp == stamp {
			return *e, true
		}
	}
	return entry{}, false
}

// peek returns the earliest queued time (live or stale) without changing the heap.
func (q *queue) peek() (Time, bool) {
	if e := q.front(); e != nil {
		return e.at, true
	}
	b := q.lowest()
	if b < 0 {
		return 0, false
	}
	src := q.buckets[b].e[:q.buckets[b].n]
	min := src[0].at
	for _, e := range src[1:] {
		min = minTime(min, e.at)
	}
	return min, true
}

func minTime(a, b Time) Time {
	if a < b {
		return a
	}
	return b
}

// filter keeps only the entries for which keep is true, preserving their order; entries of
// due already handed out are dropped.
func (q *queue) filter(keep func(*entry) bool) {
	filterBucket(&q.buckets[q.cur], q.head, keep)
	q.head = 0
	for b := range numBuckets {
		if b == q.cur {
			continue // already filtered, and not part of the heap
		}
		if filterBucket(&q.buckets[b], 0, keep) == 0 {
			q.unmark(uint(b))
		}
	}
}

func filterBucket(b *bucket, from int, keep func(*entry) bool) int {
	n := 0
	for i := from; i < b.n; i++ {
		if keep(&b.e[i]) {
			b.e[n] = b.e[i]
			n++
		}
	}
	b.n = n
	return n
}
