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

// TestSetChecksumFoldsEveryEvent runs a model whose times, sequence numbers and kinds take
// one to six significant bytes with the kernel folding a Checksum itself (SetChecksum) and
// an observer recording every fired event: the digest equals byte-by-byte FNV-1a over the
// recorded (time, sequence, kind) triples and Observe's digest of the same events.
func TestSetChecksumFoldsEveryEvent(t *testing.T) {
	k := New(7)
	direct, observed := NewChecksum(), NewChecksum()
	k.SetChecksum(direct)
	var fired []Fired
	k.SetObserver(func(ev Fired) {
		fired = append(fired, ev)
		observed.Observe(ev)
	})
	rng := k.Rand("model")
	var h *funcRecorder
	h = &funcRecorder{fn: func(kind int) {
		if k.Fired() < 3000 {
			k.After(Time(rng.Int64N(1<<uint(rng.Int64N(40)))), h.id, int(rng.Int64N(1<<uint(rng.Int64N(31)))), 0)
		}
	}}
	h.id = k.Register(h)
	for i := range 10 {
		k.Schedule(Time(i), h.id, i, 0)
	}
	if err := k.Run(); err != nil {
		t.Fatal(err)
	}
	want := uint64(14695981039346656037)
	for _, ev := range fired {
		want = fnvBytes(want, uint64(ev.Time), ev.Seq, uint64(ev.Kind))
	}
	if direct.Events() != uint64(len(fired)) || direct.Events() != 3009 || direct.Sum() != want || observed.Sum() != want {
		t.Fatalf("SetChecksum: %d events, sum %#x; observer: %d events, byte FNV-1a %#x, Observe %#x",
			direct.Events(), direct.Sum(), len(fired), want, observed.Sum())
	}
	k.SetChecksum(nil)
	k.Schedule(k.Now()+1, h.id, 1, 0)
	if err := k.Run(); err != nil {
		t.Fatal(err)
	}
	if direct.Events() != 3009 {
		t.Fatalf("SetChecksum(nil) still folds: %d events", direct.Events())
	}
}
