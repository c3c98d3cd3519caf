// Package hugepage backs the Go heap with transparent huge pages where the kernel gives
// them only on request (Linux with /sys/kernel/mm/transparent_hugepage/enabled set to
// "madvise", as many distributions and virtual machines ship it).
//
// A large simulation touches its heap once, page by page, while the cluster is built and
// its connections come up, then reads it all over at random: tens of thousands of
// connections' state. With 4 KiB pages each first touch is a page fault (5-20 us on a
// virtual machine) and most reads of cold state miss the TLB as well; 2 MiB pages take one
// fault per 512 pages and cover the working set with 512 times fewer TLB entries. The Go
// runtime maps its heap a few MiB at a time and does not ask for huge pages, and advice
// given to a mapping after the runtime has written to it comes too late for those pages.
// So a Reserver gets ahead of the heap: it allocates a block that is never written (fresh
// memory the runtime maps without touching), advises every heap mapping
// (madvise MADV_HUGEPAGE), and drops the block, so that the collector frees it and the
// simulation's own allocations reuse those advised pages.
//
// It changes how memory is backed, never what a run computes: results are the same with
// and without it. The cost is address space (the block) and pages of 2 MiB where the heap
// uses part of one.
package hugepage

// Reserver keeps the heap's growth on advised memory; the zero value does nothing until
// Reserve is called. Not safe for concurrent use.
type Reserver struct {
	reserved uint64 // bytes of heap address space advised so far (the reserves' sum)
	advised  []span // the heap's mappings at the last Advise, all advised
	// Calls counts madvise calls, for tests and diagnostics.
	Calls int
}

type span struct{ start, end uintptr }

// Reserved is the heap address space reserved so far.
func (r *Reserver) Reserved() uint64 { return r.reserved }

// done reports whether [start, end) was an advised mapping at the last Advise (one that
// grew or was replaced since is advised again).
func (r *Reserver) done(start, end uintptr) bool {
	for _, s := range r.advised {
		if s.start == start && s.end == end {
			return true
		}
	}
	return false
}
