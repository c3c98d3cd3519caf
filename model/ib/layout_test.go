package ib

import (
	"testing"
	"unsafe"
)

// TestHotObjectSizes pins the sizes of the per-connection objects the storm allocates by
// the ten thousand. A QP must stay in Go's 448-byte size class (385-448 bytes): 448 is a
// multiple of 64, so every QP starts on a cache line and its hot fields (the first 256
// bytes) take four lines; in the 416-byte class every other QP would straddle a fifth. A CQ
// keeps to one 128-byte class; a deferred-event slot, a CM id and a send queue entry keep
// the sizes that made the storm's heap smaller.
func TestHotObjectSizes(t *testing.T) {
	if s := unsafe.Sizeof(QP{}); s <= 384 || s > 448 {
		t.Errorf("QP is %d bytes, want 385-448 (the 64-byte-aligned 448 class)", s)
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

// TestLaneLayout pins the lane's layout (see lane): a whole number of cache lines, and the
// fields every transmission, arrival and credit step reads within its first two lines, the
// chunk counters and credit returns within the next two.
func TestLaneLayout(t *testing.T) {
	var l lane
	if n := unsafe.Sizeof(l); n%64 != 0 {
		t.Errorf("lane is %d bytes, not a multiple of 64: adjust its padding", n)
	}
	hot := map[string]uintptr{
		"from": unsafe.Offsetof(l.from), "to": unsafe.Offsetof(l.to), "mbps": unsafe.Offsetof(l.mbps),
		"rem": unsafe.Offsetof(l.rem), "prop": unsafe.Offsetof(l.prop), "extra": unsafe.Offsetof(l.extra),
		"credits": unsafe.Offsetof(l.credits), "epoch": unsafe.Offsetof(l.epoch), "up": unsafe.Offsetof(l.up),
		"busy": unsafe.Offsetof(l.busy), "freeing": unsafe.Offsetof(l.freeing), "waking": unsafe.Offsetof(l.waking),
		"srcDead": unsafe.Offsetof(l.srcDead), "srcDown": unsafe.Offsetof(l.srcDown), "dstOK": unsafe.Offsetof(l.dstOK),
		"lossy": unsafe.Offsetof(l.lossy), "busyTo": unsafe.Offsetof(l.busyTo), "freeAt": unsafe.Offsetof(l.freeAt),
		"q": unsafe.Offsetof(l.q), "staged": unsafe.Offsetof(l.staged), "curIn": unsafe.Offsetof(l.curIn),
		"curInEp": unsafe.Offsetof(l.curInEp), "slowTo": unsafe.Offsetof(l.slowTo), "curBytes": unsafe.Offsetof(l.curBytes),
		"waitFrom": unsafe.Offsetof(l.waitFrom),
	}
	for name, off := range hot {
		if off >= 128 {
			t.Errorf("lane.%s at byte %d: not in the first two cache lines", name, off)
		}
	}
	if off := unsafe.Offsetof(l.tx); off != 128 {
		t.Errorf("lane.tx at byte %d, want 128 (the third line starts with the chunk counters)", off)
	}
	if off := unsafe.Offsetof(l.rx) + unsafe.Offsetof(l.rx.pkts); off >= 192 {
		t.Errorf("lane.rx.pkts at byte %d: not in the third line", off)
	}
	if off := unsafe.Offsetof(l.train) + unsafe.Offsetof(l.train.txEv); off >= 256 {
		t.Errorf("lane.train.txEv at byte %d: not in the first four lines", off)
	}
}
