package socklnd

import (
	"testing"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

// pumper keeps PUTs with ACK in flight from n1 to n2: each ACK launches the next.
type pumper struct {
	c         *cluster
	tb        testing.TB
	size      int
	remaining int
	done      int
}

func (u *pumper) OnEvent(ev *lnet.Event) {
	if ev.Type != lnet.EventACK {
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
	n := u.c.nodes[0]
	md := n.MDBind(lnet.MDSpec{Length: u.size, Threshold: 2, Handler: u})
	if err := n.Put(lnet.AnyNID, md, lnet.AckReqAck, nidOf(2), testPortal, 7, 0, 0); err != nil {
		u.tb.Fatal(err)
	}
}

// benchPut measures full-stack PUT+ACK (LNet, socklnd's txs, typed sockets and ZC-ACKs, the
// TCP model's segments, links and switch) between two nodes on 25 GbE, 16 PUTs in flight.
func benchPut(b *testing.B, size int) {
	c := newCluster(b, clusterOpt{noTrace: true})
	c.lnd.SetObserver(nil)
	c.sink[1].log = nil
	u := &pumper{c: c, tb: b, size: size, remaining: 64}
	for range 16 {
		u.next()
	}
	c.run(b, sim.Second) // connect, discover
	c.sink[1].evs = nil
	u.remaining, u.done = b.N, 0
	b.ReportAllocs()
	b.ResetTimer()
	t0, e0 := c.k.Now(), c.k.Fired()
	for range 16 {
		u.next()
	}
	for u.done < b.N {
		if err := c.k.RunUntil(c.k.Now() + sim.Millisecond); err != nil {
			b.Fatal(err)
		}
		c.sink[1].evs = c.sink[1].evs[:0]
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "PUTs/s")
	b.ReportMetric(float64(c.k.Fired()-e0)/float64(b.N), "events/PUT")
	b.ReportMetric(float64(b.N)*float64(size)*8/(c.k.Now()-t0).Seconds()/1e9, "sim-Gb/s")
}

// BenchmarkPut1MiB is the speed figure: 1 MiB PUT with ACK over tcp, to compare with
// model/o2ib's BenchmarkPut1MiB.
func BenchmarkPut1MiB(b *testing.B) { benchPut(b, 1<<20) }

// BenchmarkPutSmall is 1 KiB PUT with ACK.
func BenchmarkPutSmall(b *testing.B) { benchPut(b, 1024) }
