package sim

import "testing"

type nopHandler struct{}

func (nopHandler) Handle(int, uint64) {}

// BenchmarkTimerChurn models o2iblnd tx deadlines: every operation arms a deadline 50s ahead
// and 90% of them are cancelled before they fire (the tx completed), while the clock moves on.
// One op is one scheduled deadline.
func BenchmarkTimerChurn(b *testing.B) {
	k := New(1)
	h := k.Register(nopHandler{})
	ring := make([]EventID, 1024) // deadlines of in-flight txs
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		slot := i % len(ring)
		if i%10 != 0 {
			k.Cancel(ring[slot])
		}
		ring[slot] = k.After(50*Second, h, 0, uint64(i))
		if i%64 == 0 {
			if err := k.RunUntil(k.Now() + Microsecond); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkScheduleFire measures the bare cost of one schedule plus one fire with a small
// pending set, the kernel's floor per event.
func BenchmarkScheduleFire(b *testing.B) { scheduleFire(b, New(1)) }

// scheduleFire keeps 64 events pending on k and schedules and fires b.N more.
func scheduleFire(b *testing.B, k *Kernel) {
	h := k.Register(nopHandler{})
	for i := range 64 {
		k.After(Time(i), h, 0, 0)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		k.After(Time(64+i%64), h, 0, 0)
		if i%64 == 63 {
			if err := k.RunUntil(k.Now() + 64); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkScheduleFireChecksum is BenchmarkScheduleFire with the determinism checksum every
// run keeps: folded by the kernel (direct) or by an observer calling Checksum.Observe.
func BenchmarkScheduleFireChecksum(b *testing.B) {
	for _, mode := range []string{"direct", "observer"} {
		b.Run(mode, func(b *testing.B) {
			k := New(1)
			c := NewChecksum()
			if mode == "direct" {
				k.SetChecksum(c)
			} else {
				k.SetObserver(c.Observe)
			}
			scheduleFire(b, k)
		})
	}
}
