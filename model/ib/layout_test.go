package ib

import (
	"testing"
	"unsafe"
)

// TestHotObjectSizes pins the sizes of the per-connection objects the storm allocates by
// the ten thousand. A QP must stay in Go's 448-byte size class (385-448 bytes): 448 is a
// multiple of 64, so every QP starts on a cache line and its hot fields (the first 256
// bytes) take four lines; in the 416-byte class every other QP would straddle a fifth. A
// Port (a thousand or so) keeps what pull reads in its first line of 192 bytes. A CQ
// keeps to one 128-byte class; a deferred-event slot, a CM id and a send queue entry keep
// the sizes that made the storm's heap smaller.
func TestHotObjectSizes(t *testing.T) {
	if s := unsafe.Sizeof(QP{}); s <= 384 || s > 448 {
		t.Errorf("QP is %d bytes, want 385-448 (the 64-byte-aligned 448 class)", s)
	}
	var p Port
	if s := unsafe.Sizeof(p); s <= 176 || s > 192 {
		t.Errorf("Port is %d bytes, want 177-192 (the 64-byte-aligned 192 class)", s)
	}
	if off := unsafe.Offsetof(p.hca) + 8; off > 64 {
		t.Errorf("Port.hca ends at byte %d: pull's fields are not all in the first cache line", off)
	}
	for _, c := range []struct {
		name string
		got  uintptr
		max  uintptr
	}{
		{"CQ", unsafe.Sizeof(CQ{}), 128},
		{"CMID", unsafe.Sizeof(CMID{}), 288},
		{"pending", unsafe.Sizeof(pending{}), 184},
		{"sendWQE", unsafe.Sizeof(sendWQE{}), 40},
		{"rqRun", unsafe.Sizeof(rqRun{}), 24},
	} {
		if c.got > c.max {
			t.Errorf("%s is %d bytes, want at most %d", c.name, c.got, c.max)
		}
	}
}

// TestLaneLayout pins the lane's layout (see lane): a whole number of cache lines; in the
// first line what an arrival reads and counts and the first tests of tryStart and
// cutThrough, in the second what a transmission reads and
// writes, in the third the input buffer, credit returns and stalls.
func TestLaneLayout(t *testing.T) {
	var l lane
	if n := unsafe.Sizeof(l); n%64 != 0 {
		t.Errorf("lane is %d bytes, not a multiple of 64: adjust its padding", n)
	}
	lines := []map[string][2]uintptr{{
		"from": {unsafe.Offsetof(l.from), unsafe.Sizeof(l.from)}, "to": {unsafe.Offsetof(l.to), unsafe.Sizeof(l.to)},
		"rx": {unsafe.Offsetof(l.rx), unsafe.Sizeof(l.rx)}, "freeAt": {unsafe.Offsetof(l.freeAt), 8}, "delay": {unsafe.Offsetof(l.delay), 8},
		"epoch": {unsafe.Offsetof(l.epoch), 4}, "slowTo": {unsafe.Offsetof(l.slowTo), 4}, "up": {unsafe.Offsetof(l.up), 1},
		"busy": {unsafe.Offsetof(l.busy), 1}, "freeing": {unsafe.Offsetof(l.freeing), 1}, "waking": {unsafe.Offsetof(l.waking), 1},
		"srcDead": {unsafe.Offsetof(l.srcDead), 1}, "srcDown": {unsafe.Offsetof(l.srcDown), 1}, "dstOK": {unsafe.Offsetof(l.dstOK), 1},
		"lossy": {unsafe.Offsetof(l.lossy), 1},
	}, {
		"mbps": {unsafe.Offsetof(l.mbps), 8}, "rem": {unsafe.Offsetof(l.rem), 8}, "credits": {unsafe.Offsetof(l.credits), 8},
		"tx": {unsafe.Offsetof(l.tx), unsafe.Sizeof(l.tx)}, "waitFrom": {unsafe.Offsetof(l.waitFrom), 8},
		"q": {unsafe.Offsetof(l.q), unsafe.Sizeof(l.q)}, "src": {unsafe.Offsetof(l.src), 8},
	}, {
		"curIn": {unsafe.Offsetof(l.curIn), 4}, "curInEp": {unsafe.Offsetof(l.curInEp), 4}, "curBytes": {unsafe.Offsetof(l.curBytes), 8},
		"staged": {unsafe.Offsetof(l.staged), 4}, "retHead": {unsafe.Offsetof(l.retHead), 8},
		"busyTo": {unsafe.Offsetof(l.busyTo), 8}, "rets": {unsafe.Offsetof(l.rets), unsafe.Sizeof(l.rets)},
	}}
	for i, line := range lines {
		for name, f := range line {
			if first, last := f[0]/64, (f[0]+f[1]-1)/64; first != uintptr(i) || last != uintptr(i) {
				t.Errorf("lane.%s at bytes %d-%d: not in line %d (bytes %d-%d)", name, f[0], f[0]+f[1]-1, i, 64*i, 64*i+63)
			}
		}
	}
}
