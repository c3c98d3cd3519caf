package main

import (
	"os"
	"runtime/metrics"

	"github.com/lnetsim/lnetsim/internal/hugepage"
)

// firstReserve is the most heap address space advised for huge pages before a scenario is
// loaded (a quarter of the memory cap at most): a cluster of ten thousand clients fits in
// it whole. It costs address space, not memory: the block is never written.
const firstReserve = 4 << 30

// minReserve is the smallest reserve worth making: a few huge pages.
const minReserve = 16 << 20

// heapPages is the huge-page policy of lnetsim run and bench (internal/hugepage): a first
// reserve before anything is loaded, its pages returned at once; then, checked with the
// run's monitor, each time the heap's objects pass three quarters of what is reserved, a
// reserve as large again (doubling), as long as the heap and the new reserve stay under
// half the memory cap: a later reserve's pages are left to the runtime's scavenger (so the
// heap's free huge pages are not split), and until it returns them the runtime counts
// them as memory in use.
// LNETSIM_HUGEPAGES=off turns it off. It changes how memory is backed, never a result.
type heapPages struct {
	r        hugepage.Reserver
	maxMem   uint64 // the run's memory cap, 0: none
	on       bool
	cycles   uint64 // GC cycles when the last reserve was made: no new one before the next
	lastSeen uint64 // heap objects at the last check: mappings are re-read only on growth
}

// newHeapPages makes the first reserve (a quarter of maxMem at most) and returns the policy.
func newHeapPages(maxMem uint64) *heapPages {
	h := &heapPages{maxMem: maxMem, on: os.Getenv("LNETSIM_HUGEPAGES") != "off" && hugepage.Available()}
	if !h.on {
		return h
	}
	n := uint64(firstReserve)
	if maxMem > 0 {
		n = min(n, maxMem/4)
	}
	if n < minReserve {
		h.on = false // a cap this small leaves nothing to reserve
		return h
	}
	h.r.Reserve(n, true)
	h.cycles, _ = heapFigures()
	return h
}

// grow is called between slices of a run's events: it advises new heap mappings and
// reserves more as the heap grows.
func (h *heapPages) grow() {
	if !h.on {
		return
	}
	cycles, objects := heapFigures()
	if objects == h.lastSeen {
		return
	}
	h.lastSeen = objects
	res := h.r.Reserved()
	if cycles > h.cycles && objects > res/4*3 && (h.maxMem == 0 || objects+res <= h.maxMem/2) {
		h.r.Reserve(res, false)
		h.cycles = cycles
		return
	}
	h.r.Advise()
}

// heapFigures reads the collector's completed cycles and the bytes of heap objects.
func heapFigures() (cycles, objects uint64) {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64(), s[1].Value.Uint64()
}
