package tcp

import (
	"net/netip"
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

// BenchmarkTwoFlowsOverflow is two bulk flows into one link in steady state, 10 ms of
// virtual time per op: the switch output overflows every 150 ms or so, dropping frames of
// both flows, and both recover. The overflow walk allocates nothing (its slices are
// reused); the 2 allocs/op are the kernel's event buckets and the receiver's out-of-order
// queue growing, as before the walk.
func BenchmarkTwoFlowsOverflow(b *testing.B) {
	k := sim.New(1)
	n := New(k, Config{})
	hs, err := n.SingleSwitch([]string{"a", "b", "srv"}, LinkSpec{Rate: 10 * Gbps, Latency: sim.Microsecond}, netip.MustParseAddr("10.0.0.1"))
	if err != nil {
		b.Fatal(err)
	}
	srv := hs[2]
	srv.Listen(988, Options{}, func(c *Conn) { c.SetHandler(&rec{k: k, onData: func(*Conn, Record) {}}) })
	for _, h := range hs[:2] {
		h.Dial(netip.AddrPortFrom(h.Addrs()[0], 0), netip.AddrPortFrom(srv.Addrs()[0], 988), Options{}, func(c *Conn, err error) {
			r := &rec{k: k}
			c.SetHandler(r)
			stream(k, c, r, 64<<10, sim.Hour)
		})
	}
	k.RunUntil(sim.Second)
	before, ev := n.Counters().DropOverflow, k.Fired()
	b.ReportAllocs()
	for b.Loop() {
		k.RunUntil(k.Now() + 10*sim.Millisecond)
	}
	b.ReportMetric(float64(n.Counters().DropOverflow-before)/float64(b.N), "drops/op")
	b.ReportMetric(float64(k.Fired()-ev)/float64(b.N), "events/op")
}
