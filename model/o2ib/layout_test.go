package o2ib

import (
	"testing"
	"unsafe"
)

// TestHotObjectSizes pins the size classes of o2iblnd's per-connection objects: a conn in
// Go's 256-byte class and a tx in the 320-byte class, multiples of 64 (the 288 and 352
// classes are not), so each starts on a cache line; the fields every completion reads (a
// conn's first 192 bytes, a tx's up to msg.typ) take three and two lines; a net (kibNet) is
// 384 bytes with what a receive and a send read in its first line; a message (wireMsg) is
// 192 bytes, three lines; a peer is 192 bytes with what a send reads (nextConn) in its first
// line.
func TestHotObjectSizes(t *testing.T) {
	if s := unsafe.Sizeof(conn{}); s <= 224 || s > 256 {
		t.Errorf("conn is %d bytes, want 225-256 (the 256 class)", s)
	}
	if o := unsafe.Offsetof(conn{}.active) + unsafe.Sizeof(txList{}); o > 192 {
		t.Errorf("a conn's tx lists end at byte %d, want them in the first three lines", o)
	}
	if s := unsafe.Sizeof(tx{}); s <= 288 || s > 320 {
		t.Errorf("tx is %d bytes, want 289-320 (the 320 class)", s)
	}
	if s := unsafe.Sizeof(wireMsg{}); s != 192 {
		t.Errorf("wireMsg is %d bytes, want 192 (three whole lines)", s)
	}
	if s := unsafe.Sizeof(peer{}); s != 192 {
		t.Errorf("peer is %d bytes, want 192 (three whole lines)", s)
	}
	if o := unsafe.Offsetof(peer{}.linked); o >= 64 {
		t.Errorf("a peer's linked flag is at byte %d, want nextConn's fields in its first line", o)
	}
	if s := unsafe.Sizeof(kibNet{}); s != 384 {
		t.Errorf("kibNet is %d bytes, want 384 (a class of whole lines)", s)
	}
	if o := unsafe.Offsetof(kibNet{}.crashed); o >= 64 {
		t.Errorf("a net's flags are at byte %d, want them in its first line with the stamps", o)
	}
	if o := unsafe.Offsetof(kibNet{}.tun) + unsafe.Offsetof(tunables{}.Timeout) + 8; o > 128 {
		t.Errorf("a net's timeout parameter ends at byte %d, want it in the second line", o)
	}
	if o := unsafe.Offsetof(tx{}.msg) + unsafe.Offsetof(wireMsg{}.typ); o >= 128 {
		t.Errorf("a tx's msg.typ is at byte %d, want it in the first two lines", o)
	}
}
