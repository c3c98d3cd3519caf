package ib

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// TestConnectError: the active node dies after sending its REQ; the passive side accepts,
// resends its REP MaxRetries times and reports CONNECT_ERROR.
func TestConnectError(t *testing.T) {
	k, _, a, b := cmSetup(t, Config{CM: cmTest})
	b.r.onCM = func(ev CMEvent) {
		if ev.Type == CMConnectRequest {
			a.n.CrashNode()
		}
		b.on(ev)
	}
	a.connect(t, ipB)
	run(t, k)
	if got := b.r.cmTypes(); !slices.Equal(got, []CMEventType{CMConnectRequest, CMConnectError}) {
		t.Fatalf("passive events %v", got)
	}
	if el := b.r.cmAt[1] - b.r.cmAt[0]; el != sim.Time(cmTest.MaxRetries+1)*cmTest.ResponseTimeout {
		t.Fatalf("CONNECT_ERROR %v after the request", el)
	}
	if b.id.QP().State() != QPErr {
		t.Fatalf("passive QP %v", b.id.QP().State())
	}
}

// TestPassiveDisconnect: the passive side disconnects; both see DISCONNECTED.
func TestPassiveDisconnect(t *testing.T) {
	k, _, a, b := cmSetup(t, Config{CM: cmTest})
	a.connect(t, ipB)
	run(t, k)
	must(t, b.id.Disconnect())
	if err := b.id.Disconnect(); err == nil {
		t.Fatal("second disconnect accepted")
	}
	run(t, k)
	if got := a.r.cmTypes()[3:]; !slices.Equal(got, []CMEventType{CMDisconnected, CMTimewaitExit}) {
		t.Fatalf("active %v", got)
	}
	if got := b.r.cmTypes()[2:]; !slices.Equal(got, []CMEventType{CMDisconnected, CMTimewaitExit}) {
		t.Fatalf("passive %v", got)
	}
}

// TestAddrChange: moving an address to another port raises ADDR_CHANGE on ids using it.
func TestAddrChange(t *testing.T) {
	k, f, a, _ := cmSetup(t, Config{CM: cmTest})
	a.connect(t, ipB)
	run(t, k)
	p2 := a.n.AddHCA("mlx5_1", 1).Port(1)
	f.Connect(p2, f.Switches()[0], LinkSpec{Rate: EDR, Latency: 50})
	must(t, f.MoveAddr(ipA, p2))
	run(t, k)
	if got := a.r.cmTypes(); got[len(got)-1] != CMAddrChange {
		t.Fatalf("events %v", got)
	}
	if f.PortByIP(ipA) != p2 || len(p2.IPs()) != 1 {
		t.Fatal("address not moved")
	}
	if err := f.MoveAddr(netip.MustParseAddr("1.2.3.4"), p2); err == nil {
		t.Fatal("moved an unassigned address")
	}
}

// TestContentionCounters: two senders into one receiver stall on credits (PortXmitWait)
// while data counters balance end to end.
func TestContentionCounters(t *testing.T) {
	k, f, s := fabricN(t, 1, 3, Config{})
	c2 := &side{n: s[2].n, p: s[2].p, cq: s[2].cq, r: s[2].r}
	rcPair(t, s[0], s[2], defRTS, 16)
	rcPair(t, s[1], c2, defRTS, 16)
	mr, _ := s[2].p.HCA().RegMR(1<<20, AccessRemoteWrite)
	for i := 0; i < 16; i++ {
		must(t, s[0].qp.PostSend(SendWR{Op: OpWrite, Len: 1 << 20, RKey: mr.RKey}))
		must(t, s[1].qp.PostSend(SendWR{Op: OpWrite, Len: 1 << 20, RKey: mr.RKey}))
	}
	run(t, k)
	ca, cb, cc := s[0].p.Counters(), s[1].p.Counters(), s[2].p.Counters()
	if ca.PortXmitWait == 0 || cb.PortXmitWait == 0 {
		t.Fatalf("no credit stalls under 2:1 contention: %d %d", ca.PortXmitWait, cb.PortXmitWait)
	}
	if cc.PortRcvData != ca.PortXmitData+cb.PortXmitData || cc.PortRcvPkts != ca.PortXmitPkts+cb.PortXmitPkts {
		t.Fatalf("data not conserved: %+v %+v %+v", ca, cb, cc)
	}
	if want := uint64(32 * (1 << 20) / 4096); cc.PortRcvPkts != want {
		t.Fatalf("receiver counted %d packets, want %d", cc.PortRcvPkts, want)
	}
	// The switch port facing the receiver transmitted what the receiver got.
	if sw := f.Links()[2].Counters(1); sw.PortXmitData != cc.PortRcvData {
		t.Fatalf("switch port %+v", sw)
	}
	f.ResetCounters()
	if s[2].p.Counters() != (PortCounters{}) {
		t.Fatal("reset left counts")
	}
}

// TestExtraDelayAndHCALatency: injected link delay and HCA latency add to the latency sum.
func TestExtraDelayAndHCALatency(t *testing.T) {
	k, f, s := fabricN(t, 1, 2, Config{HCALatency: 300})
	a, b := s[0], s[1]
	rcPair(t, a, b, defRTS, 4)
	f.Links()[1].SetExtraDelay(sim.Microsecond)
	must(t, b.qp.PostRecv(RecvWR{Len: 64}))
	must(t, a.qp.PostSend(SendWR{Op: OpSend, Len: 64}))
	run(t, k)
	want := 300 + sim.Time((64+pktHeader)*8000/100_000) + 50 + 100 + 50 + sim.Microsecond
	if b.r.wcs[0].at != want {
		t.Fatalf("receive at %v, want %v", b.r.wcs[0].at, want)
	}
}

// TestSQDrain: SQD finishes the message on the wire, raises SQ_DRAINED once the sends
// are acknowledged, holds later WRs, and resumes them on the return to RTS.
func TestSQDrain(t *testing.T) {
	k, _, s := fabricN(t, 1, 2, Config{})
	a, b := s[0], s[1]
	rcPair(t, a, b, defRTS, 8)
	mr, _ := b.p.HCA().RegMR(1<<20, AccessRemoteWrite)
	must(t, a.qp.PostSend(SendWR{ID: 1, Op: OpWrite, Len: 1 << 20, Signaled: true, RKey: mr.RKey}))
	must(t, a.qp.PostSend(SendWR{ID: 2, Op: OpWrite, Len: 1 << 20, Signaled: true, RKey: mr.RKey}))
	k.RunUntil(20 * sim.Microsecond) // WR 1 is on the wire
	must(t, a.qp.Modify(QPSQD, QPAttr{}))
	k.RunUntil(sim.Millisecond)
	if len(a.r.wcs) != 1 || a.r.wcs[0].WRID != 1 || len(a.r.async) != 1 || a.r.async[0].Type != EventSQDrained {
		t.Fatalf("in SQD: %+v %+v", a.r.wcs, a.r.async)
	}
	must(t, a.qp.Modify(QPRTS, QPAttr{}))
	run(t, k)
	if len(a.r.wcs) != 2 || a.r.wcs[1].WRID != 2 || a.r.wcs[1].Status != WCSuccess {
		t.Fatalf("after SQD->RTS: %+v", a.r.wcs)
	}
}

// TestRemoteAccess: deregistered regions and out-of-range writes fail with REM_ACCESS_ERR.
func TestRemoteAccess(t *testing.T) {
	for _, tc := range []struct {
		name  string
		wr    func(mr *MR) SendWR
		dereg bool
	}{
		{"range", func(mr *MR) SendWR { return SendWR{Op: OpWrite, Len: 100, RemoteAddr: 1000, RKey: mr.RKey} }, false},
		{"dereg", func(mr *MR) SendWR { return SendWR{Op: OpWrite, Len: 100, RKey: mr.RKey} }, true},
		{"read-only", func(mr *MR) SendWR { return SendWR{Op: OpRead, Len: 100, RKey: mr.RKey + 1} }, false},
		{"no key", func(mr *MR) SendWR { return SendWR{Op: OpRead, Len: 100, RKey: 0} }, false},
	} {
		k, _, s := fabricN(t, 1, 2, Config{})
		a, b := s[0], s[1]
		rcPair(t, a, b, defRTS, 8)
		mr, _ := b.p.HCA().RegMR(1024, AccessRemoteWrite|AccessRemoteRead)
		b.p.HCA().RegMR(1024, AccessRemoteWrite) // rkey mr.RKey+1: no remote read
		if tc.dereg {
			mr.Dereg()
		}
		must(t, a.qp.PostSend(tc.wr(mr)))
		run(t, k)
		if !slices.Equal(a.r.statuses(), []WCStatus{WCRemAccessErr}) || a.qp.State() != QPErr {
			t.Fatalf("%s: %v %v", tc.name, a.r.statuses(), a.qp.State())
		}
	}
}

// TestRouteError: the path breaks between address and route resolution.
func TestRouteError(t *testing.T) {
	k, f, a, _ := cmSetup(t, Config{CM: cmTest})
	a.r.onCM = func(ev CMEvent) {
		if ev.Type == CMAddrResolved {
			f.Links()[1].LinkDown()
		}
		a.on(ev)
	}
	a.connect(t, ipB)
	run(t, k)
	if got := a.r.cmTypes(); !slices.Equal(got, []CMEventType{CMAddrResolved, CMRouteError}) {
		t.Fatalf("events %v", got)
	}
	if a.r.cm[1].Status != ETIMEDOUT || a.r.cmAt[1] != a.r.cmAt[0]+sim.Second {
		t.Fatalf("ROUTE_ERROR status %d at %v", a.r.cm[1].Status, a.r.cmAt[1])
	}
}

// TestDestroyConnectedID: destroying a connected id disconnects the peer; QP events go to
// the QP's own handler when it has one.
func TestDestroyConnectedID(t *testing.T) {
	k, _, a, b := cmSetup(t, Config{CM: cmTest})
	a.connect(t, ipB)
	run(t, k)
	a.id.Destroy()
	run(t, k)
	if got := b.r.cmTypes(); !slices.Equal(got, []CMEventType{CMConnectRequest, CMEstablished, CMDisconnected, CMTimewaitExit}) {
		t.Fatalf("passive events %v", got)
	}
	own := &rec{k: k}
	h := a.n.HCAs()[0]
	qp, _ := h.CreateQP(QPInitAttr{SendCQ: a.cq, RecvCQ: a.cq, MaxSendWR: 1, MaxRecvWR: 1, EventHandler: own})
	must(t, qp.Modify(QPInit, QPAttr{Port: 1}))
	n := len(a.r.async)
	h.HCAFatal()
	run(t, k)
	if len(own.async) != 1 || own.async[0].Type != EventQPFatal || own.async[0].QP != qp {
		t.Fatalf("QP handler got %+v", own.async)
	}
	if got := a.r.async[n:]; len(got) != 2 || got[0].Type != EventDeviceFatal || got[1].Type != EventQPFatal {
		t.Fatalf("device handler got %+v", got) // the CM's QP (no own handler) reports here
	}
}

// TestClearCMFaults: an injection for all requests lasts until cleared.
func TestClearCMFaults(t *testing.T) {
	k, f, a, _ := cmSetup(t, Config{CM: cmTest})
	f.InjectCMReject(ipB, RejStaleConn, nil, -1)
	a.connect(t, ipB)
	run(t, k)
	a.connect(t, ipB)
	run(t, k)
	f.ClearCMFaults(ipB)
	a.connect(t, ipB)
	run(t, k)
	want := []CMEventType{CMAddrResolved, CMRouteResolved, CMRejected, CMAddrResolved, CMRouteResolved, CMRejected,
		CMAddrResolved, CMRouteResolved, CMEstablished}
	if got := a.r.cmTypes(); !slices.Equal(got, want) || a.r.cm[2].Status != int(RejStaleConn) {
		t.Fatalf("events %v", got)
	}
}

// TestResourceRules: device limits, duplicate listeners, destroyed QPs and CQs.
func TestResourceRules(t *testing.T) {
	k, _, s := fabricN(t, 1, 2, Config{})
	a, b := s[0], s[1]
	h := a.p.HCA()
	h.SetAttr(DeviceAttr{MaxQPWR: 16, MaxCQE: 32})
	if _, err := h.CreateQP(QPInitAttr{SendCQ: a.cq, RecvCQ: a.cq, MaxSendWR: 17, MaxRecvWR: 1}); err == nil {
		t.Fatal("QP deeper than max_qp_wr created")
	}
	if _, err := h.CreateCQ(33, nil); err == nil {
		t.Fatal("CQ larger than max_cqe created")
	}
	h.SetAttr(DefaultDeviceAttr)
	l1, l2 := a.n.CreateID(a.r), a.n.CreateID(a.r)
	must(t, l1.BindAddr(netip.AddrPortFrom(ipA, svc)))
	must(t, l1.Listen(1))
	must(t, l2.BindAddr(netip.AddrPortFrom(netip.IPv4Unspecified(), svc)))
	if err := l2.Listen(1); err == nil {
		t.Fatal("two listeners on one service")
	}
	if err := l2.BindAddr(netip.AddrPortFrom(ipB, svc)); err == nil {
		t.Fatal("bound to another node's address")
	}
	// The peer's QP is destroyed: the sender's WR times out; the destroyed QP completes
	// nothing, and a destroyed CQ reports nothing.
	rcPair(t, a, b, QPAttr{Timeout: 8, RetryCnt: 1, RNRRetry: 1}, 4)
	must(t, b.qp.PostRecv(RecvWR{ID: 5, Len: 100}))
	b.qp.Destroy()
	b.cq.Destroy()
	must(t, a.qp.PostSend(SendWR{ID: 1, Op: OpSend, Len: 100, Signaled: true}))
	run(t, k)
	if !slices.Equal(a.r.statuses(), []WCStatus{WCRetryExcErr}) || len(b.r.wcs) != 0 {
		t.Fatalf("completions %v / %v", a.r.statuses(), b.r.statuses())
	}
	if s, r := a.qp.Outstanding(); s != 0 || r != 0 {
		t.Fatalf("outstanding %d/%d", s, r)
	}
	// CQ_ERR goes to the CQ's own handler when it has one.
	own := &rec{k: k}
	cq, _ := h.CreateCQ(1, nil)
	cq.SetEventHandler(own)
	qp, _ := h.CreateQP(QPInitAttr{SendCQ: cq, RecvCQ: cq, MaxSendWR: 4, MaxRecvWR: 4})
	must(t, qp.Modify(QPInit, QPAttr{Port: 1}))
	must(t, qp.PostRecv(RecvWR{}))
	must(t, qp.PostRecv(RecvWR{}))
	must(t, qp.Modify(QPErr, QPAttr{}))
	run(t, k)
	if len(own.async) != 1 || own.async[0].Type != EventCQErr || own.async[0].CQ != cq {
		t.Fatalf("CQ handler got %+v", own.async)
	}
}

// TestLocalLinkDown: a QP whose own port is down keeps sending into the void and fails
// with RETRY_EXC_ERR after retry_cnt+1 ACK timeouts; after the link returns, new QPs work.
func TestLocalLinkDown(t *testing.T) {
	k, f, s := fabricN(t, 1, 2, Config{})
	a, b := s[0], s[1]
	rcPair(t, a, b, QPAttr{Timeout: 10, RetryCnt: 2, RNRRetry: 6}, 8)
	f.Links()[0].LinkDown()
	must(t, a.qp.PostSend(SendWR{ID: 1, Op: OpSend, Len: 100, Signaled: true}))
	must(t, a.qp.PostSend(SendWR{ID: 2, Op: OpSend, Len: 100, Signaled: true}))
	run(t, k)
	if !slices.Equal(a.r.statuses(), []WCStatus{WCRetryExcErr, WCFlushErr}) {
		t.Fatalf("statuses %v", a.r.statuses())
	}
	if at := a.r.wcs[0].at; at != 3*AckTimeout(10) {
		t.Fatalf("RETRY_EXC_ERR at %v, want %v", at, 3*AckTimeout(10))
	}
	f.Links()[0].LinkUp()
	run(t, k)
	a.r.wcs = nil
	rcPair(t, a, b, defRTS, 8)
	must(t, b.qp.PostRecv(RecvWR{Len: 100}))
	must(t, a.qp.PostSend(SendWR{ID: 3, Op: OpSend, Len: 100, Signaled: true}))
	run(t, k)
	if !slices.Equal(a.r.statuses(), []WCStatus{WCSuccess}) {
		t.Fatalf("after link up: %v", a.r.statuses())
	}
}

// TestFatalHCAPortEvents: a fatal HCA raises no port events, whatever its cable does; Recover
// (the reset and re-probe) raises PORT_ACTIVE for a port that is up, and a port that is down
// then raises it when its link comes up.
func TestFatalHCAPortEvents(t *testing.T) {
	k, _, s := fabricN(t, 1, 2, Config{})
	a := s[0]
	h, l := a.p.HCA(), a.p.Link()
	types := func() []AsyncEventType {
		var out []AsyncEventType
		for _, ev := range a.r.async {
			out = append(out, ev.Type)
		}
		a.r.async = a.r.async[:0]
		return out
	}
	h.HCAFatal()
	run(t, k)
	if got := types(); !slices.Equal(got, []AsyncEventType{EventDeviceFatal}) {
		t.Fatalf("HCAFatal: events %v", got)
	}
	l.LinkDown()
	run(t, k)
	l.LinkUp()
	run(t, k)
	if got := types(); len(got) != 0 || !h.Fatal() || a.p.State() != PortActive {
		t.Fatalf("link cycle on a fatal HCA: events %v, fatal %v, port %v", got, h.Fatal(), a.p.State())
	}
	h.Recover()
	run(t, k)
	if got := types(); !slices.Equal(got, []AsyncEventType{EventPortActive}) || h.Fatal() {
		t.Fatalf("Recover: events %v, fatal %v", got, h.Fatal())
	}
	h.Recover() // not fatal: nothing happens
	run(t, k)
	if got := types(); len(got) != 0 {
		t.Fatalf("Recover of a healthy HCA: events %v", got)
	}
	h.HCAFatal()
	l.LinkDown()
	h.Recover()
	run(t, k)
	if got := types(); !slices.Equal(got, []AsyncEventType{EventDeviceFatal}) {
		t.Fatalf("Recover with the port down: events %v", got)
	}
	l.LinkUp()
	run(t, k)
	if got := types(); !slices.Equal(got, []AsyncEventType{EventPortActive}) {
		t.Fatalf("LinkUp after Recover: events %v", got)
	}
}
