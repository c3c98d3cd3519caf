package lnet

import (
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// pumper keeps a fixed number of PUTs in flight from src to dst, issuing the next on each ACK.
type pumper struct {
	src       *Node
	dst       NID
	remaining int
	done      int
	tb        testing.TB
}

func (u *pumper) OnEvent(ev *Event) {
	if ev.Type != EventACK {
		return
	}
	u.done++
	u.next()
}

func (u *pumper) next() {
	if u.remaining == 0 {
		return
	}
	u.remaining--
	md := u.src.MDBind(MDSpec{Length: 4096, Threshold: 2, Handler: u})
	if err := u.src.Put(AnyNID, md, AckReqAck, u.dst, testPortal, 1, 0, 0); err != nil {
		u.tb.Fatal(err)
	}
}

// runPumper warms up with 16 PUTs in flight (discovery, pools), then times b.N round trips
// with 16 in flight.
func runPumper(b *testing.B, k *sim.Kernel, u *pumper) {
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

// BenchmarkPutAck measures full LNet PUT+ACK round trips (selection, credits, ideal LND,
// parse, match, ACK, finalize, events) between two nodes with two rails each, 16 in flight.
func BenchmarkPutAck(b *testing.B) { benchPairPutAck(b, 2) }

// benchPairPutAck pumps PUT+ACK round trips, 16 in flight, between two nodes with nis NIs
// each, without tracers or event handlers.
func benchPairPutAck(b *testing.B, nis int) {
	p := newPair(b, nis, nis, DefaultTunables(), NetTunables{})
	p.a.SetTracer(nil)
	p.b.SetTracer(nil)
	p.b.portals[testPortal][0].md.spec.Handler = nil
	runPumper(b, p.k, &pumper{src: p.a, dst: nid("10.0.0.2@o2ib"), remaining: 16, tb: b})
}
