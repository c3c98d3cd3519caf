//go:build linux

package hugepage

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"syscall"
	"unsafe"
)

const madvHugepage = 14 // MADV_HUGEPAGE

// Available reports whether huge pages come only on request: the kernel's THP mode is
// "madvise". With "always" the heap already gets them, with "never" (or no THP) it cannot.
func Available() bool {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	return err == nil && bytes.Contains(b, []byte("[madvise]"))
}

// Reserve adds n bytes of advised address space ahead of the heap: it allocates an
// untouched block of n bytes, advises the heap's mappings, drops the block and runs a
// collection that frees it, so that the next allocations reuse that advised address space
// instead of mapping more. With release the collection also returns the block's pages to
// the system (debug.FreeOSMemory: they were never written, so this is cheap while the heap
// is small, and the runtime's memory figures do not count the block afterwards); without
// it the runtime's scavenger returns them in its own time, and pages of the heap that are
// free at that moment stay where they are (FreeOSMemory would return them too, splitting
// huge pages the heap will write again). It does nothing where Available is false, and only
// advises what is mapped where the kernel does not overcommit memory (vm.overcommit_memory
// 2), as the block would be charged in full there.
func (r *Reserver) Reserve(n uint64, release bool) {
	if n == 0 || !Available() {
		return
	}
	if strictOvercommit("/proc/sys/vm/overcommit_memory") {
		// Address space is charged as memory: a block the size of the heap to come could
		// fail (and a failed heap allocation ends the process), so advise what is mapped.
		r.Advise()
		return
	}
	block := make([]byte, n)
	r.Advise()
	runtime.KeepAlive(block) // allocated, and live until the mappings are advised
	block = nil
	if release {
		debug.FreeOSMemory()
	} else {
		runtime.GC()
	}
	r.reserved += n
}

// strictOvercommit reports whether the kernel refuses to overcommit memory
// (vm.overcommit_memory 2), read from path.
func strictOvercommit(path string) bool {
	b, err := os.ReadFile(path)
	return err == nil && string(bytes.TrimSpace(b)) == "2"
}

// heapMarker is a heap object whose address locates the Go heap's first arena.
var heapMarker = new([64]byte)

// arenaReach is how far above the first arena the heap's later arenas are looked for: the
// runtime grows its heap upwards from there.
const arenaReach = 1 << 42

// Advise advises every writable anonymous mapping from the heap's first arena upwards that
// it has not advised as it is now. Errors (no /proc, an old kernel) are ignored: huge pages
// are only an optimisation.
func (r *Reserver) Advise() {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return
	}
	base := uintptr(unsafe.Pointer(heapMarker))
	var first uintptr
	var now []span // the heap's mappings as they are, every one advised by the end
	sc := bufio.NewScanner(bytes.NewReader(maps))
	for sc.Scan() {
		start, end, writable, anon, ok := parseLine(sc.Bytes())
		if !ok {
			continue
		}
		if first == 0 {
			if start > base || base >= end {
				continue
			}
			first = start
		}
		if start >= first+arenaReach {
			break
		}
		if !anon || !writable {
			continue
		}
		if !r.done(start, end) {
			syscall.Syscall(syscall.SYS_MADVISE, start, end-start, madvHugepage)
			r.Calls++
		}
		now = append(now, span{start, end})
	}
	r.advised = now // mappings merged or gone since are forgotten
}

// parseLine reads "start-end perms offset dev inode [path]" from a /proc/self/maps line:
// writable for a private read-write mapping, anon for one with no file and no [name].
func parseLine(l []byte) (start, end uintptr, writable, anon, ok bool) {
	f := bytes.Fields(l)
	if len(f) < 5 {
		return 0, 0, false, false, false
	}
	dash := bytes.IndexByte(f[0], '-')
	if dash < 0 {
		return 0, 0, false, false, false
	}
	s, err1 := strconv.ParseUint(string(f[0][:dash]), 16, 64)
	e, err2 := strconv.ParseUint(string(f[0][dash+1:]), 16, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false, false, false
	}
	return uintptr(s), uintptr(e), string(f[1]) == "rw-p", len(f) == 5, true
}
