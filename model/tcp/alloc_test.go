package tcp

import (
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// BenchmarkSteadyStream is a bulk flow in steady state, 100us of virtual time per op; the
// TCP model allocates nothing per chunk (allocs/op 0; the bytes are the event queue's
// buckets growing).
func BenchmarkSteadyStream(b *testing.B) {
	p := newPair(b, Config{}, LinkSpec{Latency: sim.Microsecond}, Options{})
	c := p.dial(b, Options{})
	p.srec.onData = func(*Conn, Record) {}
	stream(p.k, c, p.crec, 64<<10, sim.Hour)
	p.k.RunUntil(p.k.Now() + 10*sim.Millisecond)
	b.ReportAllocs()
	for b.Loop() {
		p.k.RunUntil(p.k.Now() + 100*sim.Microsecond)
	}
}
