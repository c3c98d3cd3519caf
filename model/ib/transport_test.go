package ib

import (
	"slices"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

func TestSendRecv(t *testing.T) {
	k, _, s := fabricN(t, 1, 2, Config{})
	a, b := s[0], s[1]
	rcPair(t, a, b, defRTS, 16)
	must(t, b.qp.PostRecv(RecvWR{ID: 7, Len: 4096}))
	must(t, a.qp.PostSend(SendWR{ID: 1, Op: OpSend, Len: 1000, Signaled: true}))
	must(t, a.qp.PostSend(SendWR{ID: 2, Op: OpSend, Len: 0, Signaled: false}))
	must(t, b.qp.PostRecv(RecvWR{ID: 8, Len: 0}))
	run(t, k)
	if len(a.r.wcs) != 1 || a.r.wcs[0].WRID != 1 || a.r.wcs[0].Status != WCSuccess || a.r.wcs[0].Opcode != WCSend {
		t.Fatalf("sender completions %+v", a.r.wcs)
	}
	if len(b.r.wcs) != 2 || b.r.wcs[0].WRID != 7 || b.r.wcs[0].ByteLen != 1000 || b.r.wcs[0].Opcode != WCRecv ||
		b.r.wcs[1].WRID != 8 || b.r.wcs[1].ByteLen != 0 || b.r.wcs[0].SrcQP != a.qp.Num() {
		t.Fatalf("receiver completions %+v", b.r.wcs)
	}
}

// TestSendLatency: a small SEND across one switch arrives after serialisation (once: the
// switch cuts through) plus both links' propagation plus the switch latency.
func TestSendLatency(t *testing.T) {
	for _, size := range []int{0, 64, 1000, 4096} {
		k, f, s := fabricN(t, 1, 2, Config{SwitchLatency: 130 * sim.Nanosecond})
		a, b := s[0], s[1]
		rcPair(t, a, b, defRTS, 16)
		must(t, b.qp.PostRecv(RecvWR{ID: 1, Len: 8192}))
		k.RunUntil(sim.Microsecond)
		t0 := k.Now()
		must(t, a.qp.PostSend(SendWR{ID: 1, Op: OpSend, Len: size, Signaled: true}))
		run(t, k)
		wire := int64(size + pktHeader)
		want := sim.Time(wire*8000/100_000) + 50 + 130 + 50
		if len(b.r.wcs) != 1 || b.r.wcs[0].at-t0 != want {
			t.Fatalf("size %d: receive completion %v after post, want %v (%+v)", size, b.r.wcs[0].at-t0, want, b.r.wcs)
		}
		// The ACK comes back the same way: the send completes one more small-packet latency later.
		ack := sim.Time(ackWire*8000/100_000) + 230
		if got := a.r.wcs[0].at - t0; got != want+ack {
			t.Fatalf("size %d: send completion after %v, want %v", size, got, want+ack)
		}
		_ = f
	}
}

func TestWriteBandwidth(t *testing.T) {
	for _, rate := range []Rate{QDR, EDR, HDR, NDR} {
		k := sim.New(1)
		f := New(k, Config{})
		nodes := f.SingleSwitch([]string{"a", "b"}, LinkSpec{Rate: rate, Latency: 100 * sim.Nanosecond}, ipA)
		a := &side{n: nodes[0], p: nodes[0].HCAs()[0].Port(1), r: &rec{k: k}}
		b := &side{n: nodes[1], p: nodes[1].HCAs()[0].Port(1), r: &rec{k: k}}
		a.cq, _ = a.p.HCA().CreateCQ(256, a.r)
		b.cq, _ = b.p.HCA().CreateCQ(256, b.r)
		a.cq.ReqNotify()
		rcPair(t, a, b, defRTS, 64)
		mr, _ := b.p.HCA().RegMR(1<<20, AccessRemoteWrite)
		const msgs = 400
		posted := 0
		post := func() {
			for posted < msgs {
				if err := a.qp.PostSend(SendWR{ID: uint64(posted), Op: OpWrite, Len: 1 << 20, Signaled: true, RKey: mr.RKey}); err != nil {
					return
				}
				posted++
			}
		}
		a.r.onWC = func(WC) { post() }
		post()
		run(t, k)
		if len(a.r.wcs) != msgs {
			t.Fatalf("%v: %d completions", rate, len(a.r.wcs))
		}
		// Steady state: from the 50th to the last completion.
		first, last := a.r.wcs[49].at, a.r.wcs[msgs-1].at
		gbps := float64(msgs-50) * (1 << 20) * 8 / float64(last-first)
		ratio := gbps * 1000 / float64(rate.Mbps)
		t.Logf("%v: %.3f Gb/s payload (%.4f of link rate)", rate, gbps, ratio)
		if ratio < 0.99 || ratio > 1.0 {
			t.Fatalf("%v: one flow reaches %.4f of the link rate, want within 1%%", rate, ratio)
		}
		c := a.p.Counters()
		if c.PortXmitData*4 < msgs<<20 || b.p.Counters().PortRcvData != c.PortXmitData {
			t.Fatalf("counters %+v vs %+v", c, b.p.Counters())
		}
	}
}

// flowRun drives flows[i] = (src side, dst side) with 1 MiB writes and returns each
// flow's payload throughput over [warm, end].
func fairness(t *testing.T, sameHCA bool) []float64 {
	k, f, s := fabricN(t, 1, 3, Config{})
	type flow struct {
		src, dst *side
		bytes    float64
	}
	var flows []*flow
	if sameHCA {
		// Two QPs from a to b share a's link: the port's round-robin splits it.
		a2 := &side{n: s[0].n, p: s[0].p, cq: s[0].cq, r: s[0].r}
		b2 := &side{n: s[1].n, p: s[1].p, cq: s[1].cq, r: s[1].r}
		rcPair(t, s[0], s[1], defRTS, 32)
		rcPair(t, a2, b2, defRTS, 32)
		flows = []*flow{{src: s[0], dst: s[1]}, {src: a2, dst: b2}}
	} else {
		// a->c and b->c share the switch's link to c: its output FIFO with credits splits it.
		c2 := &side{n: s[2].n, p: s[2].p, cq: s[2].cq, r: s[2].r}
		rcPair(t, s[0], s[2], defRTS, 32)
		rcPair(t, s[1], c2, defRTS, 32)
		flows = []*flow{{src: s[0], dst: s[2]}, {src: s[1], dst: c2}}
	}
	mr, _ := s[2].p.HCA().RegMR(1<<20, AccessRemoteWrite)
	mrb, _ := s[1].p.HCA().RegMR(1<<20, AccessRemoteWrite)
	const warm, end = 2 * sim.Millisecond, 12 * sim.Millisecond
	for _, fl := range flows {
		key := mr.RKey
		if fl.dst.n == s[1].n {
			key = mrb.RKey
		}
		for fl.src.qp.PostSend(SendWR{Op: OpWrite, Len: 1 << 20, Signaled: true, RKey: key}) == nil {
		}
	}
	for _, sd := range s {
		sd.r.onWC = func(wc WC) {
			for _, fl := range flows {
				if fl.src.qp.Num() == wc.QPNum {
					if now := k.Now(); now > warm && now <= end {
						fl.bytes += float64(wc.ByteLen)
					}
					key := mr.RKey
					if fl.dst.n == s[1].n {
						key = mrb.RKey
					}
					if k.Now() < end {
						must(t, fl.src.qp.PostSend(SendWR{Op: OpWrite, Len: 1 << 20, Signaled: true, RKey: key}))
					}
				}
			}
		}
	}
	run(t, k)
	_ = f
	var out []float64
	for _, fl := range flows {
		out = append(out, fl.bytes*8/float64(end-warm)) // Gb/s
	}
	return out
}

func TestTwoFlowsFair(t *testing.T) {
	for _, same := range []bool{true, false} {
		g := fairness(t, same)
		total := g[0] + g[1]
		t.Logf("sameHCA=%v: %.3f + %.3f = %.3f Gb/s", same, g[0], g[1], total)
		for _, x := range g {
			if x < 0.95*total/2 || x > 1.05*total/2 {
				t.Fatalf("sameHCA=%v: flows get %.3f and %.3f Gb/s, want each within 5%% of half", same, g[0], g[1])
			}
		}
		if total < 0.98*100 {
			t.Fatalf("sameHCA=%v: shared link carries %.3f Gb/s, want ~100", same, total)
		}
	}
}

func TestRDMARead(t *testing.T) {
	k, _, s := fabricN(t, 1, 2, Config{})
	a, b := s[0], s[1]
	rcPair(t, a, b, defRTS, 16)
	mr, _ := b.p.HCA().RegMR(1<<20, AccessRemoteRead)
	must(t, a.qp.PostSend(SendWR{ID: 1, Op: OpRead, Len: 300000, Signaled: true, RKey: mr.RKey}))
	must(t, a.qp.PostSend(SendWR{ID: 2, Op: OpWrite, Len: 10, Signaled: true, RKey: mr.RKey})) // no write access
	must(t, a.qp.PostSend(SendWR{ID: 3, Op: OpSend, Len: 10, Signaled: false}))
	run(t, k)
	got := a.r.wcs
	if len(got) != 3 || got[0].Status != WCSuccess || got[0].Opcode != WCRDMARead || got[0].ByteLen != 300000 ||
		got[1].Status != WCRemAccessErr || got[1].WRID != 2 || got[2].Status != WCFlushErr || got[2].WRID != 3 {
		t.Fatalf("completions %+v", got)
	}
	if a.qp.State() != QPErr {
		t.Fatalf("requester state %v after remote access error", a.qp.State())
	}
}

// TestRetryExceeded: the peer dies; the oldest WR completes RETRY_EXC_ERR after exactly
// retry_cnt+1 ACK timeouts and the others flush in posting order.
func TestRetryExceeded(t *testing.T) {
	for _, retry := range []uint8{0, 1, 5, 7} {
		k, _, s := fabricN(t, 1, 2, Config{})
		a, b := s[0], s[1]
		rts := QPAttr{Timeout: 10, RetryCnt: retry, RNRRetry: 6, MinRNRTimer: 12}
		rcPair(t, a, b, rts, 16)
		b.n.CrashNode()
		k.RunUntil(sim.Millisecond)
		t0 := k.Now()
		for i := 1; i <= 4; i++ {
			must(t, a.qp.PostSend(SendWR{ID: uint64(i), Op: OpSend, Len: 5000, Signaled: i%2 == 1}))
		}
		must(t, a.qp.PostRecv(RecvWR{ID: 100}))
		run(t, k)
		T := AckTimeout(10)
		want := []WCStatus{WCRetryExcErr, WCFlushErr, WCFlushErr, WCFlushErr, WCFlushErr}
		if !slices.Equal(a.r.statuses(), want) {
			t.Fatalf("retry %d: statuses %v, want %v", retry, a.r.statuses(), want)
		}
		for i, w := range a.r.wcs[:4] {
			if w.WRID != uint64(i+1) {
				t.Fatalf("flush order %+v", a.r.wcs)
			}
		}
		if a.r.wcs[4].Opcode != WCRecv {
			t.Fatalf("receive WR not flushed last: %+v", a.r.wcs)
		}
		el := a.r.wcs[0].at - t0
		if lo := sim.Time(retry+1) * T; el < lo || el > lo+T {
			t.Fatalf("retry %d: RETRY_EXC_ERR after %v, want within one timeout of %v", retry, el, lo)
		}
		if a.qp.State() != QPErr {
			t.Fatalf("state %v", a.qp.State())
		}
	}
}

// TestRNR: with no receive posted, the SEND is refused with RNR NAKs; rnr_retry bounds the
// retries, 7 retries forever until a receive is posted.
func TestRNR(t *testing.T) {
	for _, tc := range []struct {
		rnrRetry uint8
		postAt   sim.Time // 0: never
		want     WCStatus
	}{
		{0, 0, WCRNRRetryExcErr},
		{3, 0, WCRNRRetryExcErr},
		{7, 50 * sim.Millisecond, WCSuccess},
		{3, 1 * sim.Millisecond, WCSuccess},
	} {
		k, _, s := fabricN(t, 1, 2, Config{})
		a, b := s[0], s[1]
		rcPair(t, a, b, QPAttr{Timeout: 14, RetryCnt: 5, RNRRetry: tc.rnrRetry, MinRNRTimer: 12}, 16)
		must(t, a.qp.PostSend(SendWR{ID: 1, Op: OpSend, Len: 100, Signaled: true}))
		if tc.postAt > 0 {
			k.ScheduleFunc(tc.postAt, func() { must(t, b.qp.PostRecv(RecvWR{ID: 9, Len: 100})) })
		}
		run(t, k)
		if len(a.r.wcs) != 1 || a.r.wcs[0].Status != tc.want {
			t.Fatalf("%+v: completions %+v", tc, a.r.wcs)
		}
		if tc.want == WCRNRRetryExcErr {
			// rnr_retry+1 NAKs, separated by min_rnr_timer waits.
			lo := sim.Time(tc.rnrRetry) * RNRDelay(12)
			if el := a.r.wcs[0].at; el < lo || el > lo+10*sim.Microsecond {
				t.Fatalf("%+v: RNR_RETRY_EXC_ERR at %v, want about %v", tc, el, lo)
			}
		} else if a.r.wcs[0].at < tc.postAt || a.r.wcs[0].at > tc.postAt+RNRDelay(12)+10*sim.Microsecond {
			t.Fatalf("%+v: success at %v", tc, a.r.wcs[0].at)
		}
	}
}

func TestRecvTooSmall(t *testing.T) {
	k, _, s := fabricN(t, 1, 2, Config{})
	a, b := s[0], s[1]
	rcPair(t, a, b, defRTS, 16)
	must(t, b.qp.PostRecv(RecvWR{ID: 1, Len: 10}))
	must(t, b.qp.PostRecv(RecvWR{ID: 2, Len: 10}))
	must(t, a.qp.PostSend(SendWR{ID: 1, Op: OpSend, Len: 11, Signaled: true}))
	run(t, k)
	if !slices.Equal(b.r.statuses(), []WCStatus{WCLocLenErr, WCFlushErr}) || !slices.Equal(a.r.statuses(), []WCStatus{WCRemInvReqErr}) {
		t.Fatalf("responder %v requester %v", b.r.statuses(), a.r.statuses())
	}
}

func TestCQOverrun(t *testing.T) {
	k, _, s := fabricN(t, 1, 2, Config{})
	a := s[0]
	small, _ := a.p.HCA().CreateCQ(2, nil)
	qp, _ := a.p.HCA().CreateQP(QPInitAttr{SendCQ: small, RecvCQ: small, MaxSendWR: 8, MaxRecvWR: 8})
	must(t, qp.Modify(QPInit, QPAttr{Port: 1}))
	must(t, qp.Modify(QPErr, QPAttr{}))
	for i := 0; i < 3; i++ {
		must(t, qp.PostSend(SendWR{ID: uint64(i), Op: OpSend}))
	}
	run(t, k)
	if !small.Errored() || small.Len() != 2 {
		t.Fatalf("CQ errored=%v len=%d", small.Errored(), small.Len())
	}
	if len(a.r.async) != 2 || a.r.async[0].Type != EventCQErr || a.r.async[0].CQ != small ||
		a.r.async[1].Type != EventQPFatal || a.r.async[1].QP != qp {
		t.Fatalf("async events %+v", a.r.async)
	}
}

// TestRecvCQOverrun: a responder whose receive CQ overruns fails its QP (QP_FATAL, no ACK),
// so the requester's next SEND ends in RETRY_EXC_ERR.
func TestRecvCQOverrun(t *testing.T) {
	k, _, s := fabricN(t, 1, 2, Config{})
	a, b := s[0], s[1]
	small, _ := b.p.HCA().CreateCQ(1, nil) // never polled
	a.qp, _ = a.p.HCA().CreateQP(QPInitAttr{SendCQ: a.cq, RecvCQ: a.cq, MaxSendWR: 4, MaxRecvWR: 4})
	b.qp, _ = b.p.HCA().CreateQP(QPInitAttr{SendCQ: small, RecvCQ: small, MaxSendWR: 4, MaxRecvWR: 4})
	rts := QPAttr{Timeout: 8, RetryCnt: 1, RNRRetry: 1}
	for _, pr := range [][2]*side{{a, b}, {b, a}} {
		must(t, pr[0].qp.Modify(QPInit, QPAttr{Port: 1}))
		must(t, pr[0].qp.Modify(QPRTR, QPAttr{DestQPN: pr[1].qp.Num(), DestLID: pr[1].p.LID()}))
		must(t, pr[0].qp.Modify(QPRTS, rts))
	}
	for i := 0; i < 3; i++ {
		must(t, b.qp.PostRecv(RecvWR{ID: uint64(i), Len: 10}))
		must(t, a.qp.PostSend(SendWR{ID: uint64(i), Op: OpSend, Len: 10, Signaled: true}))
	}
	run(t, k)
	if got := a.r.statuses(); !slices.Equal(got, []WCStatus{WCSuccess, WCRetryExcErr, WCFlushErr}) {
		t.Fatalf("requester %v", got)
	}
	var types []AsyncEventType
	for _, e := range b.r.async {
		types = append(types, e.Type)
	}
	if !slices.Equal(types, []AsyncEventType{EventCQErr, EventQPFatal}) || b.qp.State() != QPErr {
		t.Fatalf("responder events %v, state %v", types, b.qp.State())
	}
}

// TestLossRecovers: lost and corrupted packets are recovered by sequence error NAKs and
// go-back-N, well before the (long) ACK timeout would fire, and delivered in order once.
func TestLossRecovers(t *testing.T) {
	k, f, s := fabricN(t, 3, 2, Config{})
	a, b := s[0], s[1]
	rcPair(t, a, b, QPAttr{Timeout: 20, RetryCnt: 7, RNRRetry: 7, MinRNRTimer: 1}, 64)
	f.Links()[0].SetLoss(0.002)
	f.Links()[1].SetCorruption(0.001)
	for i := 0; i < 64; i++ {
		must(t, b.qp.PostRecv(RecvWR{ID: uint64(i), Len: 1 << 20}))
		must(t, a.qp.PostSend(SendWR{ID: uint64(i), Op: OpSend, Len: 200000, Signaled: true}))
	}
	run(t, k)
	if len(a.r.wcs) != 64 || len(b.r.wcs) != 64 {
		t.Fatalf("%d/%d completions", len(a.r.wcs), len(b.r.wcs))
	}
	for i, w := range b.r.wcs {
		if w.Status != WCSuccess || w.WRID != uint64(i) || w.ByteLen != 200000 {
			t.Fatalf("receive %d: %+v", i, w)
		}
	}
	for _, w := range a.r.wcs {
		if w.Status != WCSuccess {
			t.Fatalf("send %+v", w)
		}
	}
	if end := a.r.wcs[63].at; end > AckTimeout(20) {
		t.Fatalf("lossy transfer took %v: recovery waited for ACK timeouts", end)
	}
	if c := b.p.Counters(); c.SymbolErrorCounter == 0 || c.PortRcvErrors != c.SymbolErrorCounter {
		t.Fatalf("corruption not counted: %+v", c)
	}
	// 64 messages of 49 packets; retransmissions resume at
	// the lost chunk, so the overhead stays a few chunks per loss.
	sent, need := a.p.Counters().PortXmitPkts, uint64(64*49)
	t.Logf("%d packets sent for %d packets of payload", sent, need)
	if sent <= need || sent > need*13/10 {
		t.Fatalf("%d packets sent for %d packets of payload", sent, need)
	}
}

// TestGranularity: the chunk size does not change an uncontended transfer's duration by
// more than a chunk's extra pipeline fill, nor a small message's latency at all.
func TestGranularity(t *testing.T) {
	var base sim.Time
	for _, cp := range []int{1, 4, 16, 64} {
		k, _, s := fabricN(t, 1, 2, Config{ChunkPackets: cp})
		a, b := s[0], s[1]
		rcPair(t, a, b, defRTS, 16)
		mr, _ := b.p.HCA().RegMR(64<<20, AccessRemoteWrite)
		must(t, a.qp.PostSend(SendWR{Op: OpWrite, Len: 16 << 20, Signaled: true, RKey: mr.RKey}))
		run(t, k)
		d := a.r.wcs[0].at
		if cp == 1 {
			base = d
		}
		t.Logf("ChunkPackets=%d: 16 MiB write completes at %v", cp, d)
		if diff := float64(d-base) / float64(base); diff < 0 || diff > 0.01 {
			t.Fatalf("ChunkPackets=%d: %v vs %v at packet granularity", cp, d, base)
		}
	}
}

// TestLongLinkCredits: credits come back over the link, so a long cable with a small
// switch buffer carries one buffer per round trip (ser + 2*prop + switch latency per chunk).
func TestLongLinkCredits(t *testing.T) {
	k := sim.New(1)
	f := New(k, Config{BufferChunks: 1})
	sw := f.AddSwitch("sw")
	na, nb := f.AddNode("a"), f.AddNode("b")
	pa, pb := na.AddHCA("h", 1).Port(1), nb.AddHCA("h", 1).Port(1)
	const prop = 50 * sim.Microsecond // 10 km of fibre
	f.Connect(pa, sw, LinkSpec{Rate: EDR, Latency: prop})
	f.Connect(pb, sw, LinkSpec{Rate: EDR, Latency: 100})
	a := &side{n: na, p: pa, r: &rec{k: k}}
	b := &side{n: nb, p: pb, r: &rec{k: k}}
	a.cq, _ = pa.HCA().CreateCQ(8, a.r)
	b.cq, _ = pb.HCA().CreateCQ(8, b.r)
	a.cq.ReqNotify()
	rcPair(t, a, b, defRTS, 4)
	mr, _ := pb.HCA().RegMR(1<<24, AccessRemoteWrite)
	must(t, a.qp.PostSend(SendWR{Op: OpWrite, Len: 16 << 20, Signaled: true, RKey: mr.RKey}))
	run(t, k)
	wire := int64(16*4096 + 16*pktHeader)
	period := sim.Time(wire*8000/100_000) + 2*prop + 100
	want := 256 * period
	got := a.r.wcs[0].at
	t.Logf("16 MiB over a 10 km link with one chunk of buffer: %v (%.2f Gb/s), model %v", got, float64(16<<23)/float64(got), want)
	if d := float64(got-want) / float64(want); d < -0.02 || d > 0.02 {
		t.Fatalf("took %v, want about %v", got, want)
	}
	if pa.Counters().PortXmitWait == 0 {
		t.Fatal("no credit stall counted")
	}
}

// TestReadResponseGap: losing the first chunk of a READ response makes the requester
// re-read as soon as the next chunk shows the gap, not after the ACK timeout.
func TestReadResponseGap(t *testing.T) {
	k, f, s := fabricN(t, 1, 2, Config{})
	a, b := s[0], s[1]
	rcPair(t, a, b, defRTS, 4)
	mr, _ := b.p.HCA().RegMR(1<<20, AccessRemoteRead)
	must(t, a.qp.PostSend(SendWR{ID: 1, Op: OpRead, Len: 1 << 20, Signaled: true, RKey: mr.RKey}))
	// The request reaches b at ~203ns; response chunk 0 reaches the switch at ~353ns,
	// chunk 1 at ~5.6us: lose only chunk 0.
	l := f.Links()[1]
	k.ScheduleFunc(300, func() { l.SetLoss(1) })
	k.ScheduleFunc(sim.Microsecond, func() { l.SetLoss(0) })
	run(t, k)
	if !slices.Equal(a.r.statuses(), []WCStatus{WCSuccess}) || a.r.wcs[0].ByteLen != 1<<20 {
		t.Fatalf("completions %+v", a.r.wcs)
	}
	if at := a.r.wcs[0].at; at > sim.Millisecond {
		t.Fatalf("READ completed at %v: waited for the ACK timeout", at)
	}
}
