package o2ib

import (
	"testing"
	"unsafe"
)

// TestHotObjectSizes pins the size classes of o2iblnd's per-connection objects: a conn and
// a tx in Go's 320-byte class, a multiple of 64 (the 352 class is not), so each starts on
// a cache line and the fields every completion reads (a conn's first 128 bytes, a tx's up
// to msg.typ) take two lines.
func TestHotObjectSizes(t *testing.T) {
	if s := unsafe.Sizeof(conn{}); s <= 288 || s > 320 {
		t.Errorf("conn is %d bytes, want 289-320 (the 320 class)", s)
	}
	if s := unsafe.Sizeof(tx{}); s <= 288 || s > 320 {
		t.Errorf("tx is %d bytes, want 289-320 (the 320 class)", s)
	}
	if o := unsafe.Offsetof(tx{}.msg) + unsafe.Offsetof(wireMsg{}.typ); o >= 128 {
		t.Errorf("a tx's msg.typ is at byte %d, want it in the first two lines", o)
	}
}
