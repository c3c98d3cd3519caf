package phold

import (
	"fmt"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// Reference values of REFERENCE.md (identical across ns-3, SimGrid, SimPy, Go queues).
var references = []struct {
	lps, pop int
	end      sim.Time
	events   uint64
	checksum uint64
}{
	{1000, 1000, 10 * sim.Second, 9_999_492, 5003879041},
	{10000, 10000, 1 * sim.Second, 9_998_677, 49990286747},
	{10000, 100000, 100 * sim.Millisecond, 9_991_015, 49953399273},
}

func TestReferenceChecksums(t *testing.T) {
	if testing.Short() {
		t.Skip("10M-event runs; skipped in -short")
	}
	for _, r := range references {
		k := sim.New(1)
		m := New(k, Default(r.lps, r.pop, r.end))
		if err := k.Run(); err != nil {
			t.Fatal(err)
		}
		if m.Count != r.events || m.Checksum() != r.checksum {
			t.Errorf("lps=%d pop=%d end=%s: events=%d checksum=%d, want %d and %d",
				r.lps, r.pop, r.end, m.Count, m.Checksum(), r.events, r.checksum)
		}
	}
}

// BenchmarkPHOLD reports the event-loop rate of each reference configuration; one benchmark
// iteration is one event, so ns/op is nanoseconds per event and allocs/op shows that the
// steady state allocates nothing.
func BenchmarkPHOLD(b *testing.B) {
	for _, r := range references {
		b.Run(benchName(r.lps, r.pop), func(b *testing.B) {
			// Run PHOLD with an end time large enough for b.N events and stop after b.N.
			k := sim.New(1)
			cfg := Default(r.lps, r.pop, sim.MaxTime/2)
			m := New(k, cfg)
			k.SetLimits(sim.Limits{MaxEvents: uint64(b.N)})
			b.ReportAllocs()
			b.ResetTimer()
			_ = k.Run()
			b.StopTimer()
			if m.Count != uint64(b.N) {
				b.Fatalf("ran %d events, want %d", m.Count, b.N)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

func benchName(lps, pop int) string { return fmt.Sprintf("lps=%d/pop=%d", lps, pop) }
