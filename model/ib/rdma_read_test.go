package ib

import (
	"errors"
	"slices"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// opRun posts count signalled ops of n bytes from a to b (b posting a receive per SEND)
// on an idle single-switch EDR pair whose QPs have the given READ limits (initiator depth
// and responder resources), runs to the end and returns both sides and the fabric.
func opRun(t *testing.T, op Opcode, n, count int, depth, res uint8) (a, b *side, f *Fabric) {
	t.Helper()
	k, f, s := fabricN(t, 1, 2, Config{})
	a, b = s[0], s[1]
	rcPair(t, a, b, QPAttr{Timeout: 14, RetryCnt: 5, RNRRetry: 6, MinRNRTimer: 12, MaxRdAtomic: depth, MaxDestRdAtomic: res}, 64)
	mr, _ := b.p.HCA().RegMR(4<<20, AccessRemoteWrite|AccessRemoteRead)
	for i := range count {
		if op == OpSend {
			must(t, b.qp.PostRecv(RecvWR{ID: uint64(i), Len: n}))
		}
		must(t, a.qp.PostSend(SendWR{ID: uint64(i), Op: op, Len: n, Signaled: true, RKey: mr.RKey}))
	}
	run(t, k)
	if len(a.r.wcs) != count {
		t.Fatalf("%v x%d: %d completions", op, count, len(a.r.wcs))
	}
	for i, w := range a.r.wcs {
		if w.Status != WCSuccess || w.ByteLen != n || w.WRID != uint64(i) {
			t.Fatalf("%v x%d: completion %d %+v", op, count, i, w)
		}
	}
	return a, b, f
}

// TestReadVsWriteTimes: exact completion times of one READ, WRITE and SEND on an idle EDR
// link through one switch. A READ completes at the initiator exactly when the same WRITE
// does: the WRITE's completion waits for its ACK (30 wire bytes) and its first packet
// carries a RETH (16), the READ's request (42) and its response's AETH (4) are the same 46
// bytes. The data is in place at the WRITE's target one ACK leg before the WRITE completes
// (the SEND's receive completion shows it); a pull puts it there one request leg after the
// READ is posted instead.
func TestReadVsWriteTimes(t *testing.T) {
	for _, tc := range []struct {
		n                  int
		read, write, place sim.Time
	}{
		{4 << 10, 733, 733, 529},
		{1 << 20, 84821, 84821, 84618},
		{4 << 20, 338077, 338077, 337874},
	} {
		r, _, _ := opRun(t, OpRead, tc.n, 1, 16, 16)
		w, _, _ := opRun(t, OpWrite, tc.n, 1, 16, 16)
		_, sb, _ := opRun(t, OpSend, tc.n, 1, 16, 16)
		if got := [3]sim.Time{r.r.wcs[0].at, w.r.wcs[0].at, sb.r.wcs[0].at}; got != [3]sim.Time{tc.read, tc.write, tc.place} {
			t.Fatalf("%d bytes: READ, WRITE done and SEND placed at %v, want %v %v %v", tc.n, got, tc.read, tc.write, tc.place)
		}
	}
}

// TestReadInitiatorDepth: 20 READs of 4 KiB on one QP keep at most max_rd_atomic of them
// outstanding (the 5th waits in the send queue for the 1st response); the responder holds
// as many. A smaller depth leaves the link idle between round trips.
func TestReadInitiatorDepth(t *testing.T) {
	for _, tc := range []struct {
		depth          uint8
		peak, respPeak int
		end            sim.Time
	}{
		{1, 1, 1, 14668}, // one round trip (733 ns) per READ
		{2, 2, 1, 7665},
		{4, 4, 3, 7004}, // the response stream fills the link: 4 is as fast as 16
		{16, 16, 15, 7004},
	} {
		a, b, _ := opRun(t, OpRead, 4<<10, 20, tc.depth, 16)
		if a.qp.rdPeak != tc.peak || b.qp.respPeak != tc.respPeak || a.r.wcs[19].at != tc.end {
			t.Fatalf("depth %d: %d outstanding, %d held by the responder, done at %v; want %d %d %v",
				tc.depth, a.qp.rdPeak, b.qp.respPeak, a.r.wcs[19].at, tc.peak, tc.respPeak, tc.end)
		}
	}
}

// TestReadLimitsNegotiated: the CM gives each QP the smaller of its side's offer and the
// peer's matching one. The client offers initiator depth 16 and no responder resources
// (as o2iblnd offers none of either), the server 2 and 16: the client's QP may have 2
// READs outstanding and answers none, the server's holds 2 and may issue none. Eight 256 KiB
// READs then keep exactly 2 outstanding; the server's READ is refused at posting.
func TestReadLimitsNegotiated(t *testing.T) {
	k, f, a, b := cmSetup(t, Config{CM: cmTest})
	a.param.InitiatorDepth, a.param.ResponderResources = 16, 0
	b.r.onCM = func(ev CMEvent) {
		if ev.Type != CMConnectRequest {
			b.on(ev)
			return
		}
		b.id = ev.ID
		_, err := ev.ID.CreateQP(QPInitAttr{SendCQ: b.cq, RecvCQ: b.cq, MaxSendWR: 16, MaxRecvWR: 8})
		must(t, err)
		must(t, ev.ID.Accept(ConnParam{ResponderResources: 2, InitiatorDepth: 16}))
	}
	a.connect(t, ipB)
	run(t, k)
	qa, qb := a.id.QP(), b.id.QP()
	if qa.State() != QPRTS || qb.State() != QPRTS {
		t.Fatalf("not connected: %v %v", qa.State(), qb.State())
	}
	if at, bt := qa.Attr(), qb.Attr(); at.MaxRdAtomic != 2 || at.MaxDestRdAtomic != 0 || bt.MaxRdAtomic != 0 || bt.MaxDestRdAtomic != 2 {
		t.Fatalf("client rd_atomic %d dest %d, server %d dest %d; want 2 0 0 2", at.MaxRdAtomic, at.MaxDestRdAtomic, bt.MaxRdAtomic, bt.MaxDestRdAtomic)
	}
	mr, _ := f.Nodes()[1].HCAs()[0].RegMR(1<<20, AccessRemoteRead)
	for i := range 8 {
		must(t, qa.PostSend(SendWR{ID: uint64(i), Op: OpRead, Len: 256 << 10, Signaled: true, RKey: mr.RKey}))
	}
	if err := qb.PostSend(SendWR{Op: OpRead, Len: 1, RKey: 1}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("READ on a QP with initiator depth 0: %v, want EINVAL", err)
	}
	t0 := k.Now()
	run(t, k)
	if len(a.r.wcs) != 8 || a.r.wcs[7].Status != WCSuccess || qa.rdPeak != 2 || qb.respPeak != 2 {
		t.Fatalf("%d completions (%+v), %d outstanding, %d held; want 8 ok, 2, 2", len(a.r.wcs), a.r.wcs, qa.rdPeak, qb.respPeak)
	}
	if el := a.r.wcs[7].at - t0; el != 169242 { // 2 MiB at 99.1 Gb/s: depth 2 still fills the link
		t.Fatalf("eight READs took %v", el)
	}
}

// failRun posts wr and a SEND behind it from a to b (timeout exponent 10, retry_cnt 2),
// with b's link down from the start if down, and returns a's completions.
func failRun(t *testing.T, wr func(mr *MR) SendWR, down bool) []twc {
	t.Helper()
	k, f, s := fabricN(t, 1, 2, Config{})
	a, b := s[0], s[1]
	rcPair(t, a, b, QPAttr{Timeout: 10, RetryCnt: 2, RNRRetry: 6, MinRNRTimer: 12}, 16)
	mr, _ := b.p.HCA().RegMR(1<<20, AccessRemoteWrite|AccessRemoteRead)
	b.p.HCA().RegMR(1<<20, AccessRemoteWrite) // rkey mr.RKey+1: no remote read
	if down {
		f.Links()[1].LinkDown()
	}
	must(t, a.qp.PostSend(wr(mr)))
	must(t, a.qp.PostSend(SendWR{ID: 9, Op: OpSend, Len: 10, Signaled: true}))
	run(t, k)
	if a.qp.State() != QPErr {
		t.Fatalf("requester in %v after a failed READ", a.qp.State())
	}
	return a.r.wcs
}

// TestReadFailures: a READ to an rkey without remote read, or past its region's end,
// completes with REM_ACCESS_ERR one round trip after posting (the responder's NAK); a
// READ towards a dead link completes with RETRY_EXC_ERR after retry_cnt+1 = 3 ACK timeouts
// (4.19 ms each), at the same nanosecond as the WRITE; the SEND behind either is flushed.
func TestReadFailures(t *testing.T) {
	for _, tc := range []struct {
		name   string
		wr     func(mr *MR) SendWR
		down   bool
		status WCStatus
		at     sim.Time
	}{
		{"read-rkey", func(mr *MR) SendWR { return SendWR{ID: 1, Op: OpRead, Len: 4096, RKey: mr.RKey + 1} }, false, WCRemAccessErr, 405},
		{"read-length", func(mr *MR) SendWR {
			return SendWR{ID: 1, Op: OpRead, Len: 4096, RemoteAddr: 1<<20 - 4095, RKey: mr.RKey}
		}, false, WCRemAccessErr, 405},
		{"read-dead-link", func(mr *MR) SendWR { return SendWR{ID: 1, Op: OpRead, Len: 1 << 20, RKey: mr.RKey} }, true, WCRetryExcErr, 3 * AckTimeout(10)},
		{"write-dead-link", func(mr *MR) SendWR { return SendWR{ID: 1, Op: OpWrite, Len: 1 << 20, RKey: mr.RKey} }, true, WCRetryExcErr, 3 * AckTimeout(10)},
	} {
		wcs := failRun(t, tc.wr, tc.down)
		if len(wcs) != 2 || wcs[0].WRID != 1 || wcs[0].Status != tc.status || wcs[0].at != tc.at ||
			wcs[1].WRID != 9 || wcs[1].Status != WCFlushErr || wcs[1].at != tc.at {
			t.Fatalf("%s: completions %+v, want %v then WR_FLUSH_ERR at %v", tc.name, wcs, tc.status, tc.at)
		}
	}
}

// TestReadResponderAcrossQPs: two clients each read 8 x 256 KiB from one server whose
// QPs hold 2 READ requests each (responder resources 2, so each client's negotiated
// initiator depth is 2). Each server QP holds at most 2, 4 in all; the responses share the
// server's outbound link: the 4 MiB are done at 338082 ns, 5 ns after one 4 MiB READ alone.
func TestReadResponderAcrossQPs(t *testing.T) {
	k, _, s := fabricN(t, 1, 3, Config{})
	a, c, b := s[0], s[2], s[1]
	b2 := &side{n: b.n, p: b.p, cq: b.cq, r: b.r}
	lim := QPAttr{Timeout: 14, RetryCnt: 5, RNRRetry: 6, MinRNRTimer: 12, MaxRdAtomic: 2, MaxDestRdAtomic: 2}
	rcPair(t, a, b, lim, 16)
	rcPair(t, c, b2, lim, 16)
	mr, _ := b.p.HCA().RegMR(1<<20, AccessRemoteRead)
	for i := range 8 {
		for _, x := range []*side{a, c} {
			must(t, x.qp.PostSend(SendWR{ID: uint64(i), Op: OpRead, Len: 256 << 10, Signaled: true, RKey: mr.RKey}))
		}
	}
	run(t, k)
	if len(a.r.wcs) != 8 || len(c.r.wcs) != 8 || a.r.wcs[7].Status != WCSuccess || c.r.wcs[7].Status != WCSuccess {
		t.Fatalf("completions %+v / %+v", a.r.wcs, c.r.wcs)
	}
	got := [6]int{a.qp.rdPeak, c.qp.rdPeak, b.qp.respPeak, b2.qp.respPeak, int(a.r.wcs[7].at), int(c.r.wcs[7].at)}
	if want := [6]int{2, 2, 2, 2, 332806, 338082}; got != want {
		t.Fatalf("outstanding a c, held b(a) b(c), done a c: %v, want %v", got, want)
	}
}

// TestReadOverResponderResources: an initiator set up past its peer's responder resources
// (depth 4 against 2, which the CM never negotiates) issues 4 READs; the responder NAKs the
// 3rd (invalid request), which fails with REM_INV_REQ_ERR once the 2 before it are
// answered; the 4th is flushed.
func TestReadOverResponderResources(t *testing.T) {
	k, _, s := fabricN(t, 1, 2, Config{})
	a, b := s[0], s[1]
	rcPair(t, a, b, QPAttr{Timeout: 10, RetryCnt: 2, RNRRetry: 6, MinRNRTimer: 12, MaxRdAtomic: 4, MaxDestRdAtomic: 2}, 16)
	mr, _ := b.p.HCA().RegMR(1<<20, AccessRemoteRead)
	for i := range 4 {
		must(t, a.qp.PostSend(SendWR{ID: uint64(i), Op: OpRead, Len: 256 << 10, Signaled: true, RKey: mr.RKey}))
	}
	run(t, k)
	want := []WCStatus{WCSuccess, WCSuccess, WCRemInvReqErr, WCFlushErr}
	if !slices.Equal(a.r.statuses(), want) || a.r.wcs[2].at != 42615 || a.qp.rdPeak != 4 || b.qp.respPeak != 2 {
		t.Fatalf("completions %+v, %d outstanding, %d held; want %v, the error at 42615 ns, 4, 2", a.r.wcs, a.qp.rdPeak, b.qp.respPeak, want)
	}
}

// TestReadOrdering: with initiator depth 1, a READ 1 MiB, a READ 4 KiB and a SEND: the
// second READ waits for the first's response and the SEND waits behind it, so b receives
// the SEND after a has the 1 MiB. With depth 2 nothing waits: the SEND is not fenced
// behind the READs and reaches b while the 1 MiB response is still streaming.
func TestReadOrdering(t *testing.T) {
	for _, tc := range []struct {
		depth           uint8
		read1, send, rx sim.Time // a's READ 1 MiB and SEND completions, b's receive
	}{
		{1, 84821, 85557, 85027},
		{2, 84824, 85154, 209}, // the SEND completes in order, after the READs
	} {
		k, _, s := fabricN(t, 1, 2, Config{})
		a, b := s[0], s[1]
		rcPair(t, a, b, QPAttr{Timeout: 14, RetryCnt: 5, RNRRetry: 6, MinRNRTimer: 12, MaxRdAtomic: tc.depth, MaxDestRdAtomic: 16}, 16)
		mr, _ := b.p.HCA().RegMR(1<<20, AccessRemoteRead)
		must(t, b.qp.PostRecv(RecvWR{ID: 7, Len: 64}))
		must(t, a.qp.PostSend(SendWR{ID: 1, Op: OpRead, Len: 1 << 20, Signaled: true, RKey: mr.RKey}))
		must(t, a.qp.PostSend(SendWR{ID: 2, Op: OpRead, Len: 4 << 10, Signaled: true, RKey: mr.RKey}))
		must(t, a.qp.PostSend(SendWR{ID: 3, Op: OpSend, Len: 10, Signaled: true}))
		run(t, k)
		if len(a.r.wcs) != 3 || len(b.r.wcs) != 1 || a.r.wcs[2].Status != WCSuccess ||
			[3]sim.Time{a.r.wcs[0].at, a.r.wcs[2].at, b.r.wcs[0].at} != [3]sim.Time{tc.read1, tc.send, tc.rx} {
			t.Fatalf("depth %d: a %+v, b %+v; want READ at %v, SEND at %v, received at %v", tc.depth, a.r.wcs, b.r.wcs, tc.read1, tc.send, tc.rx)
		}
	}
}
