//go:build linux

package hugepage

import (
	"bytes"
	"os"
	"strconv"
	"testing"
)

func TestParseLine(t *testing.T) {
	for _, c := range []struct {
		line           string
		start, end     uintptr
		writable, anon bool
		ok             bool
	}{
		{"1c4966c00000-1c4967400000 rw-p 00000000 00:00 0 ", 0x1c4966c00000, 0x1c4967400000, true, true, true},
		{"1c4964000000-1c4966c00000 ---p 00000000 00:00 0", 0x1c4964000000, 0x1c4966c00000, false, true, true},
		{"00c2a000-01130000 rw-p 0082a000 fe:00 9986395   /tmp/lnetsim", 0xc2a000, 0x1130000, true, false, true},
		{"7ffe32dab000-7ffe32dcc000 rw-p 00000000 00:00 0   [stack]", 0x7ffe32dab000, 0x7ffe32dcc000, true, false, true},
		{"garbage", 0, 0, false, false, false},
		{"zz-10 rw-p 0 0 0", 0, 0, false, false, false},
	} {
		s, e, w, a, ok := parseLine([]byte(c.line))
		if s != c.start || e != c.end || w != c.writable || a != c.anon || ok != c.ok {
			t.Errorf("parseLine(%q) = %#x %#x %v %v %v, want %#x %#x %v %v %v", c.line, s, e, w, a, ok,
				c.start, c.end, c.writable, c.anon, c.ok)
		}
	}
}

// anonHuge is this process's AnonHugePages in bytes.
func anonHuge(t *testing.T) uint64 {
	b, err := os.ReadFile("/proc/self/smaps_rollup")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range bytes.Split(b, []byte("\n")) {
		if f := bytes.Fields(l); len(f) >= 2 && string(f[0]) == "AnonHugePages:" {
			kb, err := strconv.ParseUint(string(f[1]), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no AnonHugePages in smaps_rollup")
	return 0
}

// TestReserveBacksLaterAllocationsWithHugePages allocates 64 MiB of small objects after a
// reserve and requires most of them on huge pages. Where the kernel gives huge pages only on
// request (Available), that is what Reserve is for; elsewhere there is nothing to test.
func TestReserveBacksLaterAllocationsWithHugePages(t *testing.T) {
	if !Available() {
		t.Skip("transparent huge pages are not in madvise mode on this machine")
	}
	before := anonHuge(t)
	var r Reserver
	r.Reserve(256<<20, true)
	if r.Reserved() != 256<<20 || r.Calls == 0 {
		t.Fatalf("reserved %d bytes with %d madvise calls", r.Reserved(), r.Calls)
	}
	keep := make([]*[4096]byte, 16384) // 64 MiB of 4 KiB objects, each written
	for i := range keep {
		keep[i] = new([4096]byte)
		keep[i][0] = 1
	}
	got := anonHuge(t) - before
	if got < 32<<20 {
		t.Fatalf("%d MiB of the 64 MiB allocated after the reserve are on huge pages, want at least 32", got>>20)
	}
	t.Logf("%d MiB on huge pages", got>>20)
	_ = keep[len(keep)-1]
}

func TestStrictOvercommit(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		content string
		want    bool
	}{{"0\n", false}, {"1\n", false}, {"2\n", true}, {"", false}} {
		path := dir + "/overcommit_memory"
		if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := strictOvercommit(path); got != c.want {
			t.Errorf("overcommit_memory %q: strict %v, want %v", c.content, got, c.want)
		}
	}
	if strictOvercommit(dir + "/absent") {
		t.Error("an unreadable overcommit_memory reads as strict")
	}
}
