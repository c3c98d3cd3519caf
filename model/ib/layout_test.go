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
