package ib

import (
	"fmt"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// TestEventSavingEquivalence runs random traffic over random faults (link flaps, loss,
// corruption, extra delay, route sweeps, HCA failures, counter resets) twice, once with
// every hop's events (perHopEvents) and once with the event-saving paths (cut-through
// across an idle switch, switch outputs ending a transmission without an event), and
// requires the same completions at the same times and the same port counters: the saved
// events change nothing but the event count.
func TestEventSavingEquivalence(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		for _, topo := range []string{"switch", "fat", "switch-skewed"} {
			name := fmt.Sprint(topo, "/", seed)
			t.Run(name, func(t *testing.T) {
				perHopEvents = true
				ref, refEv, _ := equivRun(t, seed, topo, seed%3 != 0, GranularityFixed)
				perHopEvents = false
				got, gotEv, _ := equivRun(t, seed, topo, seed%3 != 0, GranularityFixed)
				if len(ref) != len(got) {
					t.Fatalf("%d records with every hop's events, %d without", len(ref), len(got))
				}
				for i := range ref {
					if ref[i] != got[i] {
						t.Fatalf("record %d differs:\n per hop: %s\n saving:  %s", i, ref[i], got[i])
					}
				}
				if gotEv > refEv {
					t.Errorf("%d events with the saving paths, %d without", gotEv, refEv)
				}
				t.Logf("%d records, %d events per hop, %d saving", len(ref), refEv, gotEv)
			})
		}
	}
	perHopEvents = false
}

type equivSink struct {
	k   *sim.Kernel
	out *[]string
	wcs *[]twc
}

func (s *equivSink) CompletionEvent(cq *CQ) {
	var buf [8]WC
	for {
		n := cq.Poll(buf[:])
		for _, wc := range buf[:n] {
			*s.out = append(*s.out, fmt.Sprintf("%d %+v", s.k.Now(), wc))
			*s.wcs = append(*s.wcs, twc{s.k.Now(), wc})
		}
		if n == 0 && !cq.ReqNotify() {
			return
		}
	}
}

func equivRun(t *testing.T, seed uint64, topo string, faults bool, gran Granularity) ([]string, uint64, []twc) {
	k := sim.New(seed)
	f := New(k, Config{ChunkPackets: 1 + int(seed%5)*4, BufferChunks: 1 + int(seed%3), Granularity: gran, CoarsePackets: 16 << (seed % 3)})
	// Links of distinct odd rates (and, in the skewed star, lengths), so that two
	// modelled steps rarely fall on the same nanosecond: the saving paths schedule fewer
	// events, so simultaneous events may be taken in another (equally valid) order.
	nl := 0
	spec := func(lat sim.Time) LinkSpec {
		nl++
		return LinkSpec{Rate: RateGbps(97.3 + 3.1*float64(nl) + float64(seed)/7), Latency: lat, MTU: 2048}
	}
	var nodes []*Node
	switch topo {
	case "fat": // two leaves, two spines
		var leaves []*Switch
		for i := 0; i < 2; i++ {
			leaves = append(leaves, f.AddSwitch(fmt.Sprint("leaf", i)))
		}
		for i := 0; i < 2; i++ {
			sp := f.AddSwitch(fmt.Sprint("spine", i))
			for _, l := range leaves {
				f.Connect(l, sp, spec(301))
			}
		}
		for i := 0; i < 6; i++ {
			n := f.AddNode(fmt.Sprint("n", i))
			f.Connect(n.AddHCA("mlx5_0", 1).Port(1), leaves[i%2], spec(101))
			nodes = append(nodes, n)
		}
	case "switch":
		sw := f.AddSwitch("sw")
		for i := 0; i < 4; i++ {
			n := f.AddNode(fmt.Sprint("n", i))
			f.Connect(n.AddHCA("mlx5_0", 1).Port(1), sw, spec(101))
			nodes = append(nodes, n)
		}
	default: // links of different lengths into one switch
		sw := f.AddSwitch("sw")
		for i := 0; i < 4; i++ {
			n := f.AddNode(fmt.Sprint("n", i))
			f.Connect(n.AddHCA("mlx5_0", 1).Port(1), sw, spec(sim.Time(101+i%2*40)))
			nodes = append(nodes, n)
		}
	}
	var out []string
	var wcs []twc
	sink := &equivSink{k: k, out: &out, wcs: &wcs}
	cqs := map[*Node]*CQ{}
	mrs := map[*Node]*MR{}
	for _, n := range nodes {
		cq, _ := n.HCAs()[0].CreateCQ(1<<16, sink)
		cq.ReqNotify()
		cqs[n] = cq
		mrs[n], _ = n.HCAs()[0].RegMR(1<<24, AccessRemoteRead|AccessRemoteWrite)
	}
	rnd := k.Rand("test.equiv")
	type pair struct{ a, b *QP }
	var qps []pair
	for i := 0; i < 8; i++ {
		a := nodes[0] // one sender, so no two senders start at the same nanosecond
		b := nodes[1+rnd.IntN(len(nodes)-1)]
		mk := func(n *Node) *QP {
			qp, err := n.HCAs()[0].CreateQP(QPInitAttr{SendCQ: cqs[n], RecvCQ: cqs[n], MaxSendWR: 4096, MaxRecvWR: 4096})
			must(t, err)
			return qp
		}
		x, y := mk(a), mk(b)
		for _, p := range [][2]*QP{{x, y}, {y, x}} {
			must(t, p[0].Modify(QPInit, QPAttr{Port: 1}))
			must(t, p[0].Modify(QPRTR, QPAttr{DestQPN: p[1].Num(), DestLID: p[1].HCA().Port(1).LID(), MinRNRTimer: 1}))
			must(t, p[0].Modify(QPRTS, QPAttr{Timeout: 8, RetryCnt: uint8(rnd.IntN(8)), RNRRetry: 6}))
		}
		qps = append(qps, pair{x, y})
	}
	var id uint64
	for i := 0; i < 600; i++ {
		at := sim.Time(rnd.Int64N(int64(10 * sim.Millisecond)))
		q := qps[rnd.IntN(len(qps))]
		op := Opcode(rnd.IntN(2))
		n := rnd.IntN(200000)
		if rnd.IntN(2) == 0 {
			n = rnd.IntN(300)
		}
		k.ScheduleFunc(at, func() {
			id++
			if op == OpSend || rnd.IntN(4) == 0 {
				q.b.PostRecv(RecvWR{ID: id, Len: 1 << 20})
			}
			q.a.PostSend(SendWR{ID: id, Op: op, Len: n, Signaled: true, RKey: mrs[q.b.HCA().Node()].RKey})
		})
	}
	for i := 0; faults && i < 10; i++ {
		l := f.Links()[rnd.IntN(len(f.Links()))]
		at := sim.Time(rnd.Int64N(int64(10 * sim.Millisecond)))
		d := sim.Time(rnd.Int64N(int64(2 * sim.Millisecond)))
		switch rnd.IntN(6) {
		case 0:
			k.ScheduleFunc(at, l.LinkDown)
			k.ScheduleFunc(at+d, l.LinkUp)
		case 1:
			k.ScheduleFunc(at, func() { l.SetLoss(0.01); l.SetCorruption(0.005) })
			k.ScheduleFunc(at+d, func() { l.SetLoss(0); l.SetCorruption(0) })
		case 2:
			x := sim.Time(rnd.Int64N(int64(20 * sim.Microsecond)))
			k.ScheduleFunc(at, func() { l.SetExtraDelay(x) })
			k.ScheduleFunc(at+d, func() { l.SetExtraDelay(0) })
		case 3:
			h := nodes[rnd.IntN(len(nodes))].HCAs()[0]
			k.ScheduleFunc(at, h.HCAFatal)
			k.ScheduleFunc(at+d, h.Recover)
		case 4:
			k.ScheduleFunc(at, l.LinkDown)
			k.ScheduleFunc(at+d/10, f.Resweep)
			k.ScheduleFunc(at+d, l.LinkUp)
			k.ScheduleFunc(at+d+d/10, f.Resweep)
		case 5:
			k.ScheduleFunc(at, func() {
				for _, l := range f.Links() {
					out = append(out, fmt.Sprintf("%d counters %+v %+v", k.Now(), l.Counters(0), l.Counters(1)))
				}
				f.ResetCounters()
			})
		}
	}
	k.SetLimits(sim.Limits{MaxEvents: 20_000_000})
	if err := k.Run(); err != nil {
		t.Fatal(err)
	}
	for _, l := range f.Links() {
		out = append(out, fmt.Sprintf("counters %+v %+v", l.Counters(0), l.Counters(1)))
	}
	if len(f.freeChunks) != len(f.chunks) {
		t.Fatalf("%d of %d chunks leaked", len(f.chunks)-len(f.freeChunks), len(f.chunks))
	}
	return out, k.Fired(), wcs
}
