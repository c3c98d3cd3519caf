package ib

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

var (
	ipB    = netip.MustParseAddr("10.0.0.2")
	svc    = uint16(987)
	cmTest = CMTiming{ResponseTimeout: sim.Millisecond, MaxRetries: 3, Timewait: 10 * sim.Millisecond}
)

// cmPeer is one node's CM user: it resolves, connects or listens, creates QPs and
// accepts or rejects as told, recording every event.
type cmPeer struct {
	r      *rec
	n      *Node
	cq     *CQ
	reject []byte // passive: reject with this private data instead of accepting
	id     *CMID  // active id, or the last passive id
	param  ConnParam
}

func newCMPeer(k *sim.Kernel, n *Node) *cmPeer {
	p := &cmPeer{r: &rec{k: k}, n: n}
	p.cq, _ = n.HCAs()[0].CreateCQ(64, p.r)
	p.cq.ReqNotify()
	n.HCAs()[0].RegisterEventHandler(p.r)
	p.r.onCM = p.on
	return p
}

func (p *cmPeer) qpAttr() QPInitAttr {
	return QPInitAttr{SendCQ: p.cq, RecvCQ: p.cq, MaxSendWR: 8, MaxRecvWR: 8}
}

func (p *cmPeer) on(ev CMEvent) {
	switch ev.Type {
	case CMAddrResolved:
		_ = ev.ID.ResolveRoute(sim.Second)
	case CMRouteResolved:
		if _, err := ev.ID.CreateQP(p.qpAttr()); err != nil {
			panic(err)
		}
		if err := ev.ID.Connect(p.param); err != nil {
			panic(err)
		}
	case CMConnectRequest:
		p.id = ev.ID
		if p.reject != nil {
			_ = ev.ID.Reject(p.reject)
			return
		}
		qp, err := ev.ID.CreateQP(p.qpAttr())
		if err != nil {
			panic(err)
		}
		_ = qp.PostRecv(RecvWR{ID: 77, Len: 4096})
		_ = ev.ID.Accept(ConnParam{PrivateData: []byte("ack"), RNRRetryCount: 7})
	}
}

func cmSetup(t *testing.T, cfg Config) (*sim.Kernel, *Fabric, *cmPeer, *cmPeer) {
	k := sim.New(1)
	f := New(k, cfg)
	nodes := f.SingleSwitch([]string{"a", "b"}, LinkSpec{Rate: EDR, Latency: 50 * sim.Nanosecond}, ipA)
	a, b := newCMPeer(k, nodes[0]), newCMPeer(k, nodes[1])
	lis := nodes[1].CreateID(b.r)
	must(t, lis.BindAddr(netip.AddrPortFrom(ipB, svc)))
	must(t, lis.Listen(16))
	a.param = ConnParam{PrivateData: []byte("hello"), RetryCount: 5, RNRRetryCount: 6}
	return k, f, a, b
}

func (p *cmPeer) connect(t *testing.T, dst netip.Addr) {
	p.id = p.n.CreateID(p.r)
	must(t, p.id.ResolveAddr(netip.Addr{}, netip.AddrPortFrom(dst, svc), sim.Second))
}

func TestCMConnectAccept(t *testing.T) {
	k, _, a, b := cmSetup(t, Config{CM: cmTest})
	a.connect(t, ipB)
	run(t, k)
	if got, want := a.r.cmTypes(), []CMEventType{CMAddrResolved, CMRouteResolved, CMEstablished}; !slices.Equal(got, want) {
		t.Fatalf("active events %v, want %v", got, want)
	}
	if got, want := b.r.cmTypes(), []CMEventType{CMConnectRequest, CMEstablished}; !slices.Equal(got, want) {
		t.Fatalf("passive events %v, want %v", got, want)
	}
	if string(b.r.cm[0].PrivateData) != "hello" || b.r.cm[0].Listen == nil || string(a.r.cm[2].PrivateData) != "ack" {
		t.Fatalf("private data: req %q rep %q", b.r.cm[0].PrivateData, a.r.cm[2].PrivateData)
	}
	cm := DefaultCMTiming()
	wantT := []sim.Time{cm.AddrResolve, cm.AddrResolve + cm.RouteResolve, cm.AddrResolve + cm.RouteResolve + 2*cm.MAD}
	if !slices.Equal(a.r.cmAt, wantT) {
		t.Fatalf("active event times %v, want %v", a.r.cmAt, wantT)
	}
	qa, qb := a.id.QP(), b.id.QP()
	if qa.State() != QPRTS || qb.State() != QPRTS || qa.Attr().DestQPN != qb.Num() || qb.Attr().DestQPN != qa.Num() ||
		qa.Attr().RetryCnt != 5 || qb.Attr().RetryCnt != 5 || qb.Attr().RNRRetry != 7 || qa.Attr().RNRRetry != 6 {
		t.Fatalf("QPs %v %+v / %v %+v", qa.State(), qa.Attr(), qb.State(), qb.Attr())
	}
	// The connection carries traffic.
	must(t, qb.PostRecv(RecvWR{ID: 1, Len: 100}))
	must(t, qa.PostSend(SendWR{ID: 2, Op: OpSend, Len: 100, Signaled: true}))
	run(t, k)
	if len(a.r.wcs) != 1 || a.r.wcs[0].Status != WCSuccess || len(b.r.wcs) != 1 || b.r.wcs[0].ByteLen != 100 || b.r.wcs[0].WRID != 77 {
		t.Fatalf("traffic: %+v / %+v", a.r.wcs, b.r.wcs)
	}
	// Disconnect from the active side: both ends see DISCONNECTED, then TIMEWAIT_EXIT.
	must(t, qb.PostRecv(RecvWR{ID: 3, Len: 100}))
	t0 := k.Now()
	must(t, a.id.Disconnect())
	run(t, k)
	if got := a.r.cmTypes()[3:]; !slices.Equal(got, []CMEventType{CMDisconnected, CMTimewaitExit}) {
		t.Fatalf("active after disconnect: %v", got)
	}
	if got := b.r.cmTypes()[2:]; !slices.Equal(got, []CMEventType{CMDisconnected, CMTimewaitExit}) {
		t.Fatalf("passive after disconnect: %v", got)
	}
	if a.r.cmAt[3]-t0 != 2*cm.MAD || b.r.cmAt[2]-t0 != cm.MAD || a.r.cmAt[4]-a.r.cmAt[3] != cmTest.Timewait {
		t.Fatalf("disconnect times %v / %v", a.r.cmAt, b.r.cmAt)
	}
	if qa.State() != QPErr || qb.State() != QPErr || len(b.r.wcs) != 3 || b.r.wcs[1].WRID != 1 || b.r.wcs[2].WRID != 3 ||
		b.r.wcs[1].Status != WCFlushErr || b.r.wcs[2].Status != WCFlushErr {
		t.Fatalf("after disconnect: %v %v %+v", qa.State(), qb.State(), b.r.wcs)
	}
}

func TestCMReject(t *testing.T) {
	for _, tc := range []struct {
		name   string
		setup  func(f *Fabric, b *cmPeer)
		dst    netip.Addr
		want   []CMEventType
		status int
		priv   string
		bSees  int
	}{
		{"consumer", func(f *Fabric, b *cmPeer) { b.reject = []byte("stale") }, ipB,
			[]CMEventType{CMAddrResolved, CMRouteResolved, CMRejected}, int(RejConsumerDefined), "stale", 1},
		{"injected", func(f *Fabric, b *cmPeer) { f.InjectCMReject(ipB, RejNoResources, []byte("busy"), 1) }, ipB,
			[]CMEventType{CMAddrResolved, CMRouteResolved, CMRejected}, int(RejNoResources), "busy", 0},
		{"no listener", func(f *Fabric, b *cmPeer) {
			p := f.Nodes()[1].HCAs()[0].Port(1)
			f.MoveAddr(ipB, p)
			f.Nodes()[1].listeners[0].Destroy()
		}, ipB, []CMEventType{CMAddrResolved, CMRouteResolved, CMRejected}, int(RejInvalidServiceID), "", 0},
		{"no response", func(f *Fabric, b *cmPeer) { f.InjectCMNoResponse(ipB, -1) }, ipB,
			[]CMEventType{CMAddrResolved, CMRouteResolved, CMUnreachable}, ETIMEDOUT, "", 0},
		{"peer crashed", func(f *Fabric, b *cmPeer) { b.n.CrashNode() }, ipB,
			[]CMEventType{CMAddrError}, ETIMEDOUT, "", 0},
		{"unknown address", func(f *Fabric, b *cmPeer) {}, netip.MustParseAddr("10.9.9.9"),
			[]CMEventType{CMAddrError}, ETIMEDOUT, "", 0},
		{"link down", func(f *Fabric, b *cmPeer) { f.Links()[1].LinkDown() }, ipB,
			[]CMEventType{CMAddrError}, ETIMEDOUT, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, f, a, b := cmSetup(t, Config{CM: cmTest})
			tc.setup(f, b)
			a.connect(t, tc.dst)
			run(t, k)
			if got := a.r.cmTypes(); !slices.Equal(got, tc.want) {
				t.Fatalf("active events %v, want %v", got, tc.want)
			}
			last := a.r.cm[len(a.r.cm)-1]
			if last.Status != tc.status || string(last.PrivateData) != tc.priv {
				t.Fatalf("status %d priv %q, want %d %q", last.Status, last.PrivateData, tc.status, tc.priv)
			}
			if len(b.r.cm) != tc.bSees {
				t.Fatalf("passive saw %v", b.r.cmTypes())
			}
			if tc.name == "no response" {
				// REQ sent MaxRetries+1 times, each waiting ResponseTimeout.
				want := a.r.cmAt[1] + sim.Time(cmTest.MaxRetries+1)*cmTest.ResponseTimeout
				if at := a.r.cmAt[2]; at != want {
					t.Fatalf("UNREACHABLE at %v, want %v", at, want)
				}
			}
			if tc.name == "peer crashed" && a.r.cmAt[0] != sim.Second {
				t.Fatalf("ADDR_ERROR at %v, want the resolve timeout", a.r.cmAt[0])
			}
		})
	}
}

// TestCMPeerDiesAfterConnect: the passive node crashes; the active side's traffic fails
// with RETRY_EXC_ERR, its disconnect times out into DISCONNECTED.
func TestCMPeerDiesAfterConnect(t *testing.T) {
	k, _, a, b := cmSetup(t, Config{CM: cmTest})
	a.param.AckTimeout = 8
	a.connect(t, ipB)
	run(t, k)
	b.n.CrashNode()
	must(t, a.id.QP().PostSend(SendWR{ID: 1, Op: OpSend, Len: 10, Signaled: true}))
	a.r.onWC = func(wc WC) {
		if wc.Status != WCSuccess {
			must(t, a.id.Disconnect())
		}
	}
	t0 := k.Now()
	run(t, k)
	if len(a.r.wcs) != 1 || a.r.wcs[0].Status != WCRetryExcErr {
		t.Fatalf("completions %+v", a.r.wcs)
	}
	if got := a.r.cmTypes()[3:]; !slices.Equal(got, []CMEventType{CMDisconnected, CMTimewaitExit}) {
		t.Fatalf("events %v", got)
	}
	want := a.r.wcs[0].at + sim.Time(cmTest.MaxRetries+1)*cmTest.ResponseTimeout
	if a.r.cmAt[3] != want || a.r.wcs[0].at-t0 != 6*AckTimeout(8) {
		t.Fatalf("DISCONNECTED at %v want %v; RETRY_EXC after %v", a.r.cmAt[3], want, a.r.wcs[0].at-t0)
	}
}

// TestDeviceFatal: DEVICE_FATAL and QP_FATAL to the handlers, flushes, then DEVICE_REMOVAL
// on the CM ids of the device; the peer's QP times out.
func TestDeviceFatal(t *testing.T) {
	k, _, a, b := cmSetup(t, Config{CM: CMTiming{DeviceRemoval: 5 * sim.Microsecond}})
	a.param.AckTimeout = 8
	a.connect(t, ipB)
	run(t, k)
	must(t, b.id.QP().PostRecv(RecvWR{ID: 1, Len: 10}))
	t0 := k.Now()
	b.n.HCAs()[0].HCAFatal()
	must(t, a.id.QP().PostSend(SendWR{ID: 9, Op: OpSend, Len: 10, Signaled: true}))
	run(t, k)
	var types []AsyncEventType
	for _, e := range b.r.async {
		types = append(types, e.Type)
	}
	if !slices.Equal(types, []AsyncEventType{EventDeviceFatal, EventQPFatal}) {
		t.Fatalf("async %v", types)
	}
	if len(b.r.wcs) != 2 || b.r.wcs[0].Status != WCFlushErr || b.r.wcs[1].Status != WCFlushErr || b.id.QP().State() != QPErr {
		t.Fatalf("passive completions %+v", b.r.wcs)
	}
	got := b.r.cmTypes()
	if got[len(got)-1] != CMDeviceRemoval || b.r.cmAt[len(got)-1]-t0 != 5*sim.Microsecond {
		t.Fatalf("passive events %v at %v", got, b.r.cmAt)
	}
	if len(a.r.wcs) != 1 || a.r.wcs[0].Status != WCRetryExcErr {
		t.Fatalf("active completions %+v", a.r.wcs)
	}
	// Recovery: PORT_ACTIVE, and the device accepts new resources.
	n := len(b.r.async)
	b.n.HCAs()[0].Recover()
	run(t, k)
	if got := b.r.async[n:]; len(got) != 1 || got[0].Type != EventPortActive || got[0].Port != 1 {
		t.Fatalf("after recover: %+v", got)
	}
	if _, err := b.n.HCAs()[0].CreateCQ(4, nil); err != nil {
		t.Fatal(err)
	}
}

// TestLinkEvents: both HCA ports see PORT_ERR on link down and PORT_ACTIVE on link up;
// LinkDownedCounter counts; traffic flows again after the link returns.
func TestLinkEvents(t *testing.T) {
	k, f, s := fabricN(t, 1, 2, Config{LinkUpDelay: 2 * sim.Microsecond})
	a, b := s[0], s[1]
	rcPair(t, a, b, QPAttr{Timeout: 10, RetryCnt: 7, RNRRetry: 7, MinRNRTimer: 1}, 16)
	// Back-to-back cable between two extra ports, to see both ends' events.
	ha := a.n.AddHCA("mlx5_1", 1)
	hb := b.n.AddHCA("mlx5_1", 1)
	ra, rb := &rec{k: k}, &rec{k: k}
	ha.RegisterEventHandler(ra)
	hb.RegisterEventHandler(rb)
	l := f.Connect(ha.Port(1), hb.Port(1), LinkSpec{Rate: HDR, Latency: 10})
	l.LinkDown()
	if ha.Port(1).State() != PortDown || l.Up() {
		t.Fatal("port still active")
	}
	k.RunUntil(sim.Millisecond)
	l.LinkUp()
	run(t, k)
	for _, r := range []*rec{ra, rb} {
		if len(r.async) != 2 || r.async[0].Type != EventPortErr || r.async[1].Type != EventPortActive || r.async[0].Port != 1 {
			t.Fatalf("events %+v", r.async)
		}
	}
	if l.Counters(0).LinkDownedCounter != 1 || l.Counters(1).LinkDownedCounter != 1 {
		t.Fatalf("counters %+v", l.Counters(0))
	}
	// A switch link flaps while a transfer runs: chunks in flight are lost, the QP retries
	// and completes once the link is back.
	must(t, b.qp.PostRecv(RecvWR{ID: 1, Len: 1 << 20}))
	must(t, a.qp.PostSend(SendWR{ID: 1, Op: OpSend, Len: 1 << 20, Signaled: true}))
	k.RunUntil(k.Now() + 20*sim.Microsecond)
	f.Links()[0].LinkDown()
	k.RunUntil(k.Now() + 100*sim.Microsecond)
	f.Links()[0].LinkUp()
	run(t, k)
	if len(b.r.wcs) != 1 || b.r.wcs[0].Status != WCSuccess || len(a.r.wcs) != 1 || a.r.wcs[0].Status != WCSuccess {
		t.Fatalf("after flap: %+v / %+v", a.r.wcs, b.r.wcs)
	}
}

func TestNodeRestart(t *testing.T) {
	k, _, a, b := cmSetup(t, Config{CM: cmTest})
	b.n.CrashNode()
	a.connect(t, ipB)
	k.RunUntil(sim.Millisecond)
	b.n.Restart()
	// The restarted node has no listener: the software above must create it again.
	run(t, k)
	if got := a.r.cmTypes(); !slices.Equal(got, []CMEventType{CMAddrError}) {
		t.Fatalf("events %v", got)
	}
	b2 := newCMPeer(k, b.n)
	lis := b.n.CreateID(b2.r)
	must(t, lis.BindAddr(netip.AddrPortFrom(netip.IPv4Unspecified(), svc)))
	must(t, lis.Listen(4))
	a.r.cm, a.r.cmAt = nil, nil
	a.connect(t, ipB)
	run(t, k)
	if got := a.r.cmTypes(); !slices.Equal(got, []CMEventType{CMAddrResolved, CMRouteResolved, CMEstablished}) {
		t.Fatalf("after restart: %v", got)
	}
}

// TestCommEst: data sent as soon as the active side is ESTABLISHED overtakes the RTU; the
// passive QP in RTR raises COMM_EST and the CM completes the connection at once.
func TestCommEst(t *testing.T) {
	k, _, a, b := cmSetup(t, Config{CM: cmTest})
	a.r.onCM = func(ev CMEvent) {
		a.on(ev)
		if ev.Type == CMEstablished {
			must(t, ev.ID.QP().PostSend(SendWR{ID: 1, Op: OpSend, Len: 64, Signaled: true}))
		}
	}
	a.connect(t, ipB)
	run(t, k)
	if got := b.r.cmTypes(); !slices.Equal(got, []CMEventType{CMConnectRequest, CMEstablished}) {
		t.Fatalf("passive events %v", got)
	}
	if len(b.r.async) != 1 || b.r.async[0].Type != EventCommEst || b.r.async[0].QP != b.id.QP() {
		t.Fatalf("passive async %+v", b.r.async)
	}
	if el := b.r.cmAt[1] - a.r.cmAt[2]; el >= DefaultCMTiming().MAD {
		t.Fatalf("passive ESTABLISHED %v after the active side: it waited for the RTU", el)
	}
	if len(b.r.wcs) != 1 || b.r.wcs[0].WRID != 77 || len(a.r.wcs) != 1 || a.r.wcs[0].Status != WCSuccess {
		t.Fatalf("completions %+v / %+v", a.r.wcs, b.r.wcs)
	}
}

// TestCMTransitions checks legalCMTransition against the CM id state diagram written out
// pair by pair (every state may be destroyed).
func TestCMTransitions(t *testing.T) {
	legal := map[[2]cmState]bool{
		{cmIdle, cmListen}: true, {cmIdle, cmAddrQuery}: true, {cmIdle, cmConnectReq}: true,
		{cmAddrQuery, cmAddrResolved}: true, {cmAddrQuery, cmIdle}: true,
		{cmAddrResolved, cmRouteQuery}:  true,
		{cmRouteQuery, cmRouteResolved}: true, {cmRouteQuery, cmAddrResolved}: true,
		{cmRouteResolved, cmConnecting}: true,
		{cmConnecting, cmEstablished}:   true, {cmConnecting, cmFailed}: true, {cmConnecting, cmDisconnecting}: true,
		{cmConnectReq, cmAccepting}: true, {cmConnectReq, cmFailed}: true,
		{cmAccepting, cmEstablished}: true, {cmAccepting, cmFailed}: true, {cmAccepting, cmDisconnecting}: true,
		{cmAccepting, cmDisconnected}:    true,
		{cmEstablished, cmDisconnecting}: true, {cmEstablished, cmDisconnected}: true,
		{cmDisconnecting, cmDisconnected}: true,
	}
	for from := cmIdle; from <= cmDestroyed; from++ {
		for to := cmIdle; to <= cmDestroyed; to++ {
			want := legal[[2]cmState{from, to}] || to == cmDestroyed
			if got := legalCMTransition(from, to); got != want {
				t.Errorf("%v -> %v: legal=%v, want %v", from, to, got, want)
			}
		}
	}
}

// TestCMStateWalk follows both ids of a connection through their states, and checks that an
// illegal change is refused, leaves the state as it was and is counted.
func TestCMStateWalk(t *testing.T) {
	k, f, a, b := cmSetup(t, Config{CM: cmTest})
	a.connect(t, ipB)
	if a.id.state != cmAddrQuery {
		t.Fatalf("after ResolveAddr: %v", a.id.state)
	}
	run(t, k)
	if a.id.state != cmEstablished || b.id.state != cmEstablished {
		t.Fatalf("connected: %v / %v", a.id.state, b.id.state)
	}
	if a.id.setState(cmConnecting) || a.id.state != cmEstablished || f.CMBadTransitions() != 1 {
		t.Fatalf("ESTABLISHED -> CONNECTING: state %v, refused %d", a.id.state, f.CMBadTransitions())
	}
	must(t, a.id.Disconnect())
	if a.id.state != cmDisconnecting {
		t.Fatalf("after Disconnect: %v", a.id.state)
	}
	run(t, k)
	if a.id.state != cmDisconnected || b.id.state != cmDisconnected {
		t.Fatalf("disconnected: %v / %v", a.id.state, b.id.state)
	}
	a.id.Destroy()
	if a.id.state != cmDestroyed || f.CMBadTransitions() != 1 {
		t.Fatalf("destroyed: %v, refused %d", a.id.state, f.CMBadTransitions())
	}
}
