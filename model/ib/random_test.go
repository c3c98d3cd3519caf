package ib

import (
	"fmt"
	"net/netip"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// TestRandomInvariants drives random traffic over random faults (link flaps, loss,
// corruption, extra delay, HCA fatal errors) and checks, once the run drains, that every send WR completed
// exactly once and in order, receive completions are an in-order prefix, and the fabric
// holds no chunk, queue entry or credit.
func TestRandomInvariants(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { randomRun(t, seed, seed%2 == 0, true) })
		// Without faults nothing may fail: congestion alone never exhausts retries.
		t.Run(fmt.Sprint(seed, "-clean"), func(t *testing.T) {
			if errs := randomRun(t, seed, seed%2 == 0, false); errs != 0 {
				t.Fatalf("%d error completions without faults", errs)
			}
		})
	}
}

type rqp struct {
	qp             *QP
	peer           *rqp
	sent, recv     uint64
	sendWC, recvWC []WC
}

type rsink struct{ byQP map[uint32]*rqp }

func (s *rsink) CompletionEvent(cq *CQ) {
	var buf [8]WC
	for {
		n := cq.Poll(buf[:])
		for _, wc := range buf[:n] {
			q := s.byQP[wc.QPNum]
			if wc.Opcode == WCRecv {
				q.recvWC = append(q.recvWC, wc)
			} else {
				q.sendWC = append(q.sendWC, wc)
			}
		}
		if n == 0 && !cq.ReqNotify() {
			return
		}
	}
}

func randomRun(t *testing.T, seed uint64, fat, faults bool) int {
	k := sim.New(seed)
	f := New(k, Config{ChunkPackets: 4, BufferChunks: 2})
	spec := LinkSpec{Rate: EDR, Latency: 100, MTU: 2048}
	var nodes []*Node
	if fat {
		nodes, _ = f.BuildFatTree(FatTree{Radix: 4, Oversubscription: 1, Leaves: 3, Host: spec, Spine: spec}, "n", netip.Addr{})
	} else {
		nodes = f.SingleSwitch([]string{"a", "b", "c", "d"}, spec, netip.Addr{})
	}
	sink := &rsink{byQP: map[uint32]*rqp{}}
	cqs := map[*Node]*CQ{}
	mrs := map[*Node]*MR{}
	for _, n := range nodes {
		cq, _ := n.HCAs()[0].CreateCQ(1<<16, sink)
		cq.ReqNotify()
		cqs[n] = cq
		mrs[n], _ = n.HCAs()[0].RegMR(1<<24, AccessRemoteRead|AccessRemoteWrite)
	}
	rnd := k.Rand("test.random")
	var qps []*rqp
	for i := 0; i < 6; i++ {
		a := nodes[rnd.IntN(len(nodes))]
		b := nodes[rnd.IntN(len(nodes))]
		if a == b {
			continue
		}
		mk := func(n *Node) *rqp {
			qp, err := n.HCAs()[0].CreateQP(QPInitAttr{SendCQ: cqs[n], RecvCQ: cqs[n], MaxSendWR: 4096, MaxRecvWR: 4096})
			must(t, err)
			r := &rqp{qp: qp}
			sink.byQP[qp.Num()] = r
			return r
		}
		x, y := mk(a), mk(b)
		x.peer, y.peer = y, x
		for _, p := range [][2]*rqp{{x, y}, {y, x}} {
			must(t, p[0].qp.Modify(QPInit, QPAttr{Port: 1}))
			must(t, p[0].qp.Modify(QPRTR, QPAttr{DestQPN: p[1].qp.Num(), DestLID: p[1].qp.HCA().Port(1).LID(), MinRNRTimer: 1}))
			must(t, p[0].qp.Modify(QPRTS, QPAttr{Timeout: 8, RetryCnt: uint8(rnd.IntN(8)), RNRRetry: 6}))
		}
		qps = append(qps, x, y)
	}
	if len(qps) == 0 {
		return 0
	}
	// Traffic: bursts of random operations at random times.
	for i := 0; i < 400; i++ {
		at := sim.Time(rnd.Int64N(int64(20 * sim.Millisecond)))
		q := qps[rnd.IntN(len(qps))]
		op := Opcode(rnd.IntN(3))
		n := rnd.IntN(300000)
		k.ScheduleFunc(at, func() {
			if op == OpSend || rnd.IntN(4) == 0 {
				if q.peer.qp.PostRecv(RecvWR{ID: q.peer.recv, Len: 1 << 20}) == nil {
					q.peer.recv++
				}
			}
			wr := SendWR{ID: q.sent, Op: op, Len: n, Signaled: true, RKey: mrs[q.peer.qp.HCA().Node()].RKey}
			if q.qp.PostSend(wr) == nil {
				q.sent++
			}
		})
	}
	// Faults.
	for i := 0; faults && i < 6; i++ {
		l := f.Links()[rnd.IntN(len(f.Links()))]
		at := sim.Time(rnd.Int64N(int64(20 * sim.Millisecond)))
		d := sim.Time(rnd.Int64N(int64(3 * sim.Millisecond)))
		switch rnd.IntN(4) {
		case 3:
			h := nodes[rnd.IntN(len(nodes))].HCAs()[0]
			k.ScheduleFunc(at, h.HCAFatal)
			k.ScheduleFunc(at+d, h.Recover)
		case 0:
			k.ScheduleFunc(at, l.LinkDown)
			k.ScheduleFunc(at+d, l.LinkUp)
		case 1:
			k.ScheduleFunc(at, func() { l.SetLoss(0.01); l.SetCorruption(0.005) })
			k.ScheduleFunc(at+d, func() { l.SetLoss(0); l.SetCorruption(0) })
		case 2:
			k.ScheduleFunc(at, func() { l.SetExtraDelay(50 * sim.Microsecond) })
			k.ScheduleFunc(at+d, func() { l.SetExtraDelay(0) })
		}
	}
	k.SetLimits(sim.Limits{MaxEvents: 20_000_000})
	if err := k.Run(); err != nil {
		t.Fatal(err)
	}
	// Every send completed once, in order; after an error all later ones are flushed.
	errs := 0
	first := map[WCStatus]int{}
	for _, q := range qps {
		if uint64(len(q.sendWC)) != q.sent {
			s, r := q.qp.Outstanding()
			t.Fatalf("QP %d (%v): %d of %d sends completed (outstanding %d/%d)", q.qp.Num(), q.qp.State(), len(q.sendWC), q.sent, s, r)
		}
		failed := false
		for i, wc := range q.sendWC {
			if wc.WRID != uint64(i) {
				t.Fatalf("QP %d: completion %d is WR %d", q.qp.Num(), i, wc.WRID)
			}
			if failed && wc.Status != WCFlushErr {
				t.Fatalf("QP %d: %v after an error", q.qp.Num(), wc.Status)
			}
			if wc.Status != WCSuccess {
				if !failed {
					first[wc.Status]++
				}
				failed = true
				errs++
			}
		}
		for i, wc := range q.recvWC {
			if wc.WRID != uint64(i) {
				t.Fatalf("QP %d: receive completion %d is WR %d", q.qp.Num(), i, wc.WRID)
			}
		}
	}
	// The fabric is empty and every credit is back.
	if len(f.freeChunks) != len(f.chunks) {
		t.Fatalf("%d of %d chunks leaked", len(f.chunks)-len(f.freeChunks), len(f.chunks))
	}
	for i := range f.lanes {
		ln := &f.lanes[i]
		f.absorb(ln)
		want := int64(-1)
		if ln.to.kind == epSwitch {
			want = f.bufBytes()
		}
		if ln.busy || ln.q.head >= 0 || ln.staged >= 0 || ln.credits != want {
			t.Fatalf("lane %d: busy=%v queue=%d credits=%d (want %d)", i, ln.busy, ln.q.head, ln.credits, want)
		}
	}
	t.Logf("%d QPs, %d error completions (first errors %v), %d events", len(qps), errs, first, k.Fired())
	return errs
}
