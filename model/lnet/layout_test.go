package lnet

import (
	"testing"
	"unsafe"
)

// TestPeerNILayout pins the peer NI's lines (see PeerNI): 448 bytes, a line-aligned size
// class; a send's counts in the third line, a receive's with the router credits in the
// fourth; and a route in one line (the 64-byte class).
func TestPeerNILayout(t *testing.T) {
	var p PeerNI
	for _, c := range []struct {
		what      string
		got, want uintptr
	}{
		{"PeerNI size", unsafe.Sizeof(p), 448},
		{"heardFrom", unsafe.Offsetof(p.heardFrom), 60},
		{"minTxCredits", unsafe.Offsetof(p.minTxCredits), 64},
		{"sent", unsafe.Offsetof(p.sent), 128},
		{"received", unsafe.Offsetof(p.received), 192},
		{"minRtrCredits end", unsafe.Offsetof(p.minRtrCredits) + 8, 256},
		{"Route size", unsafe.Sizeof(Route{}), 56},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.what, c.got, c.want)
		}
	}
}

// TestMsgLayout pins a message at 384 bytes: the 384-byte size class is whole cache lines,
// so a message takes six; at 400 bytes it fell in the 416 class, where most messages
// straddled seven or eight.
func TestMsgLayout(t *testing.T) {
	if s := unsafe.Sizeof(Msg{}); s != 384 {
		t.Errorf("Msg is %d bytes, want 384", s)
	}
}

// TestPeerLayout pins a peer at 256 bytes, four whole lines (peers come from slab chunks of
// a 64-byte multiple, so each starts a line), with everything lnet_peer_is_uptodate and
// lnet_peer_needs_push read on every send in the first line, and a peer net at 64 bytes.
func TestPeerLayout(t *testing.T) {
	var p Peer
	for _, c := range []struct {
		what      string
		got, want uintptr
	}{
		{"Peer size", unsafe.Sizeof(p), 256},
		{"alive end", unsafe.Offsetof(p.alive) + 1, 62},
		{"discPush", unsafe.Offsetof(p.discPush), 32},
		{"nodeSeq", unsafe.Offsetof(p.nodeSeq), 44},
		{"PeerNet size", unsafe.Sizeof(PeerNet{}), 64},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.what, c.got, c.want)
		}
	}
}
