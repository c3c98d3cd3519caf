package lnet

import (
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// rpumper keeps a fixed number of PUTs in flight from src to dst, issuing the next on each ACK.
type rpumper struct {
	src       *Node
	dst       NID
	remaining int
	done      int
	tb        testing.TB
}

func (u *rpumper) OnEvent(ev *Event) {
	if ev.Type != EventACK {
		return
	}
	u.done++
	u.next()
}

func (u *rpumper) next() {
	if u.remaining == 0 {
		return
	}
	u.remaining--
	md := u.src.MDBind(MDSpec{Length: 4096, Threshold: 2, Handler: u})
	if err := u.src.Put(AnyNID, md, AckReqAck, u.dst, testPortal, 1, 0, 0); err != nil {
		u.tb.Fatal(err)
	}
}

func runPumper(b *testing.B, k *sim.Kernel, u *rpumper) {
	for i := 0; i < 16; i++ {
		u.next()
	}
	if err := k.RunUntil(k.Now() + sim.Second); err != nil { // warm up: discovery, pools
		b.Fatal(err)
	}
	u.remaining = b.N
	u.done = 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < 16; i++ {
		u.next()
	}
	for u.done < b.N {
		if err := k.RunUntil(k.Now() + sim.Second); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "roundtrips/s")
}

// BenchmarkPutAckDirect is the reference for BenchmarkPutAckRouted: PUT+ACK round trips
// between two single-NI nodes on one net, 16 in flight.
func BenchmarkPutAckDirect(b *testing.B) {
	p := newPair(b, 1, 1, DefaultTunables(), NetTunables{})
	p.a.SetTracer(nil)
	p.b.SetTracer(nil)
	p.b.portals[testPortal][0].md.spec.Handler = nil
	runPumper(b, p.k, &rpumper{src: p.a, dst: nid("10.0.0.2@o2ib"), remaining: 16, tb: b})
}

// BenchmarkPutAckRouted measures PUT+ACK round trips from a client to a server on another
// net through one router, 16 in flight. Each round trip forwards both its messages (PUT and
// ACK), each over two hops: the issue-6 bound (a forwarded message costs at most 2x a direct
// one) holds when this is at most 2x BenchmarkPutAckDirect.
func BenchmarkPutAckRouted(b *testing.B) {
	r := newRouted(b, 1, DefaultTunables(), DefaultTunables())
	r.lnd.Hook = nil
	r.s.portals[testPortal][0].md.spec.Handler = nil
	runPumper(b, r.k, &rpumper{src: r.c, dst: r.sNID, remaining: 16, tb: b})
}
