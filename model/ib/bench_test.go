package ib

import (
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// BenchmarkRDMAWrite1MiB moves b.N 1 MiB RDMA writes between two nodes with 32 in flight,
// with chunk-level contention modelling on (and, for comparison, at packet granularity and
// with adaptive granularity). MB/s is simulated megabytes per wall second;
// events/op is kernel events per write; sim-GiB/s is simulated GiB per wall second.
func BenchmarkRDMAWrite1MiB(b *testing.B) {
	for _, tc := range []struct {
		topo  string
		chunk int
		gran  Granularity
	}{{"back-to-back", 0, GranularityFixed}, {"one-switch", 0, GranularityFixed}, {"one-switch", 1, GranularityFixed},
		{"one-switch", 0, GranularityAdaptive}} {
		topo := tc.topo
		name := topo
		if tc.chunk > 0 {
			name += "/packet-level"
		}
		if tc.gran == GranularityAdaptive {
			name += "/adaptive"
		}
		b.Run(name, func(b *testing.B) {
			k := sim.New(1)
			f := New(k, Config{ChunkPackets: tc.chunk, Granularity: tc.gran})
			spec := LinkSpec{Rate: HDR, Latency: 100}
			na, nb := f.AddNode("a"), f.AddNode("b")
			pa, pb := na.AddHCA("mlx5_0", 1).Port(1), nb.AddHCA("mlx5_0", 1).Port(1)
			if topo == "back-to-back" {
				f.Connect(pa, pb, spec)
			} else {
				sw := f.AddSwitch("sw")
				f.Connect(pa, sw, spec)
				f.Connect(pb, sw, spec)
			}
			a := &side{n: na, p: pa, r: &rec{k: k}}
			c := &side{n: nb, p: pb, r: &rec{k: k}}
			a.cq, _ = pa.HCA().CreateCQ(64, nil)
			c.cq, _ = pb.HCA().CreateCQ(64, nil)
			rcPair(b, a, c, defRTS, 32)
			mr, _ := pb.HCA().RegMR(1<<20, AccessRemoteWrite)
			posted, done := 0, 0
			post := func() {
				for posted < b.N && a.qp.PostSend(SendWR{Op: OpWrite, Len: 1 << 20, Signaled: true, RKey: mr.RKey}) == nil {
					posted++
				}
			}
			h := &pollAll{cq: a.cq, fn: func() { done++; post() }}
			a.cq.h = h
			a.cq.ReqNotify()
			b.SetBytes(1 << 20)
			b.ReportAllocs()
			b.ResetTimer()
			post()
			if err := k.Run(); err != nil {
				b.Fatal(err)
			}
			if done != b.N {
				b.Fatalf("%d of %d completed", done, b.N)
			}
			b.ReportMetric(float64(k.Fired())/float64(b.N), "events/op")
			b.ReportMetric(float64(b.N)/1024/b.Elapsed().Seconds(), "sim-GiB/s")
		})
	}
}

// pollAll is an allocation-free CQ consumer for the benchmark.
type pollAll struct {
	cq  *CQ
	buf [16]WC
	fn  func()
}

func (p *pollAll) CompletionEvent(cq *CQ) {
	for {
		n := cq.Poll(p.buf[:])
		for i := 0; i < n; i++ {
			p.fn()
		}
		if n == 0 && !cq.ReqNotify() {
			return
		}
	}
}
