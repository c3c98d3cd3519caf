package sim

import (
	"math"
	"testing"
)

// fnvBytes is FNV-1a over the eight little-endian bytes of each value, byte by byte: the
// digest Checksum.add must reproduce.
func fnvBytes(h uint64, vs ...uint64) uint64 {
	for _, v := range vs {
		for i := 0; i < 8; i++ {
			h ^= v & 0xff
			h *= fnvPrime
			v >>= 8
		}
	}
	return h
}

// TestChecksumIsByteFNV pins add to the byte-by-byte FNV-1a digest for values of every
// length (0, one to eight significant bytes, zero bytes inside), so that every recorded
// checksum stays valid.
func TestChecksumIsByteFNV(t *testing.T) {
	vals := []uint64{0, 1, 0xff, 0x100, 0x1234, 0xff0000, 1 << 31, 0x0100000001, 0xdeadbeef00,
		1 << 47, 0x00ff00ff00ff00, 1 << 56, math.MaxUint64, 0x8000000000000000}
	for _, a := range vals {
		for _, b := range vals {
			c := NewChecksum()
			c.add(a)
			c.add(b)
			if want := fnvBytes(14695981039346656037, a, b); c.Sum() != want {
				t.Fatalf("add(%#x), add(%#x) = %#x, byte FNV-1a %#x", a, b, c.Sum(), want)
			}
		}
	}
	c := NewChecksum()
	c.Observe(Fired{Time: 123456789, Seq: 8322330, Kind: 7})
	if got, want := c.Sum(), fnvBytes(14695981039346656037, 123456789, 8322330, 7); got != want {
		t.Fatalf("Observe: %#x, want %#x", got, want)
	}
}

func BenchmarkChecksumObserve(b *testing.B) {
	c := NewChecksum()
	for i := 0; i < b.N; i++ {
		c.Observe(Fired{Time: Time(i) * 37, Seq: uint64(i), Kind: i & 15})
	}
}
