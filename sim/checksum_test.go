package sim

import (
	"fmt"
	"math"
	"testing"
)

// refDigest is the digest Checksum must produce, written from xxHash64's definition with
// plain arithmetic: per event two accumulator rounds (the time; the sequence number's halves
// swapped, xor the kind as 32 bits), then the final avalanche.
func refDigest(evs []Fired) uint64 {
	const p1, p2, p3 = 11400714785074694791, 14029467366897019727, 1609587929392839161
	rot := func(x uint64, r uint) uint64 { return x<<r | x>>(64-r) }
	h := uint64(p1)
	h += p2
	for _, ev := range evs {
		for _, v := range []uint64{uint64(ev.Time), ev.Seq<<32 | ev.Seq>>32 ^ uint64(uint32(ev.Kind))} {
			h = rot(h+v*p2, 31) * p1
		}
	}
	h ^= h >> 33
	h *= p2
	h ^= h >> 29
	h *= p3
	h ^= h >> 32
	return h
}

// TestChecksumDefinition pins Observe to refDigest for times, sequence numbers and kinds of
// every width, and checks that the digest moves when one time or kind changes, when two
// events swap, and when two events of one instant swap kinds.
func TestChecksumDefinition(t *testing.T) {
	if got, want := NewChecksum().Sum(), refDigest(nil); got != want {
		t.Fatalf("empty digest %#x, want %#x", got, want)
	}
	vals := []uint64{0, 1, 0xff, 0x1234, 1 << 31, 0xdeadbeef00, 1 << 47, math.MaxInt64}
	kinds := []int{0, 1, 7, 1 << 20, math.MaxInt32, -1, math.MinInt32}
	var evs []Fired
	for i, v := range vals {
		for j, kind := range kinds {
			evs = append(evs, Fired{Time: Time(v), Seq: vals[(i+j)%len(vals)] + 1, Kind: kind})
		}
	}
	digest := func(evs []Fired) uint64 {
		c := NewChecksum()
		for _, ev := range evs {
			c.Observe(ev)
		}
		if c.Events() != uint64(len(evs)) {
			t.Fatalf("Events() = %d, want %d", c.Events(), len(evs))
		}
		return c.Sum()
	}
	base := digest(evs)
	if want := refDigest(evs); base != want {
		t.Fatalf("digest %#x, want %#x", base, want)
	}
	seen := map[uint64]string{base: "base"}
	variant := func(name string, change func(evs []Fired)) {
		v := append([]Fired(nil), evs...)
		change(v)
		d := digest(v)
		if prev, dup := seen[d]; dup {
			t.Fatalf("%s: digest %#x equals that of %s", name, d, prev)
		}
		seen[d] = name
	}
	for i := range evs {
		variant(fmt.Sprintf("time+1 at %d", i), func(v []Fired) { v[i].Time++ })
		variant(fmt.Sprintf("time bit 62 at %d", i), func(v []Fired) { v[i].Time ^= 1 << 62 })
		variant(fmt.Sprintf("kind^1 at %d", i), func(v []Fired) { v[i].Kind ^= 1 })
		variant(fmt.Sprintf("kind bit 31 at %d", i), func(v []Fired) { v[i].Kind ^= math.MinInt32 })
		if i > 0 {
			variant(fmt.Sprintf("swap %d", i), func(v []Fired) { v[i], v[i-1] = v[i-1], v[i] })
			variant(fmt.Sprintf("swap kinds %d", i), func(v []Fired) {
				if v[i].Kind == v[i-1].Kind {
					v[i].Kind++
				}
				v[i].Kind, v[i-1].Kind = v[i-1].Kind, v[i].Kind
			})
		}
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
// an observer recording every fired event: the digest equals refDigest over the recorded
// events and Observe's digest of the same events.
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
	want := refDigest(fired)
	if direct.Events() != uint64(len(fired)) || direct.Events() != 3009 || direct.Sum() != want || observed.Sum() != want {
		t.Fatalf("SetChecksum: %d events, sum %#x; observer: %d events, refDigest %#x, Observe %#x",
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
