package o2ib

import (
	"net/netip"
	"testing"

	"github.com/lnetsim/lnetsim/model/ib"
	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

// TestRoutedPutGet runs LNet routing over o2iblnd: client 10.0.0.1@o2ib, router
// 10.0.0.2@o2ib + 10.0.1.2@o2ib1, server 10.0.1.3@o2ib1, one switch per net. A 1 MiB PUT and
// a 1 MiB GET complete end to end; the GET goes IMMEDIATE on both hops (kiblnd_send's rule
// for msg_routing / msg_target_is_router), the PUT as PUT_REQ/ACK/DONE on each hop, and the
// ACK and REPLY come from the server.
// routedFabric is client 10.0.0.1@o2ib, routers 10.0.0.h@o2ib + 10.0.1.h@o2ib1 (h = 2, 3,
// ...) and server 10.0.1.9@o2ib1, one switch per net, with routes both ways through every
// router (router i with priority i), started with routes up.
type routedFabric struct {
	k     *sim.Kernel
	obs   *traceObs
	c, s  *lnet.Node
	r     *lnet.Node   // the first router
	rs    []*lnet.Node // every router
	links [][]*ib.Link // each router's links
	sink  *evRec
	sNID  lnet.NID
}

func newRoutedFabric(t *testing.T, rtun lnet.Tunables) *routedFabric {
	return newRoutedFabricN(t, lnet.DefaultTunables(), rtun, 1)
}

func newRoutedFabricN(t *testing.T, tun, rtun lnet.Tunables, routers int) *routedFabric {
	t.Helper()
	return newRoutedFabricP(t, tun, rtun, routers, DefaultParams())
}

// newRoutedFabricP is newRoutedFabricN with the o2ib parameters of both nets.
func newRoutedFabricP(t *testing.T, tun, rtun lnet.Tunables, routers int, params Params) *routedFabric {
	t.Helper()
	k := sim.New(1)
	f := ib.New(k, ib.Config{})
	l := New(f)
	var log []string
	obs := &traceObs{k: k, lines: &log}
	l.SetObserver(obs)
	net0, net1 := lnet.MakeNet(lnet.O2IBLND, 0), lnet.MakeNet(lnet.O2IBLND, 1)
	for _, nt := range []lnet.NetID{net0, net1} {
		if err := l.SetParams(nt, params); err != nil {
			t.Fatal(err)
		}
	}
	sws := []*ib.Switch{f.AddSwitch("sw0"), f.AddSwitch("sw1")}
	mkNID := func(r, h int) lnet.NID {
		return lnet.MakeNID(lnet.MakeNet(lnet.O2IBLND, uint16(r)), uint32(10<<24|r<<8|h))
	}
	type spec struct {
		h     int
		rails []int
	}
	specs := []spec{{1, []int{0}}}
	for i := 0; i < routers; i++ {
		specs = append(specs, spec{2 + i, []int{0, 1}})
	}
	specs = append(specs, spec{9, []int{1}})
	rf := &routedFabric{k: k, obs: obs, sink: &evRec{k: k}, sNID: mkNID(1, 9)}
	var nodes []*lnet.Node
	for _, s := range specs {
		n := f.AddNode("n" + string(rune('0'+s.h)))
		var links []*ib.Link
		for _, r := range s.rails {
			p := n.AddHCA("mlx5_"+string(rune('0'+r)), 1).Port(1)
			links = append(links, f.Connect(p, sws[r], ib.LinkSpec{Rate: ib.EDR, Latency: 100 * sim.Nanosecond}))
			p.AddIP(netip.AddrFrom4([4]byte{10, 0, byte(r), byte(s.h)}))
		}
		nt := tun
		if len(s.rails) == 2 {
			nt = rtun
			rf.links = append(rf.links, links)
		}
		ln, err := lnet.NewNode(k, n.Name, nt)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range s.rails {
			if _, err := ln.AddNI(mkNID(r, s.h), l, lnet.NetTunables{}); err != nil {
				t.Fatal(err)
			}
		}
		nodes = append(nodes, ln)
	}
	rf.c, rf.s = nodes[0], nodes[len(nodes)-1]
	rf.rs = nodes[1 : len(nodes)-1]
	rf.r = rf.rs[0]
	for i, rt := range rf.rs {
		rt.SetRouting(true)
		if err := rf.c.AddRoute(net1, mkNID(0, 2+i), 1, i); err != nil {
			t.Fatal(err)
		}
		if err := rf.s.AddRoute(net0, mkNID(1, 2+i), 1, i); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range nodes {
		if err := n.Startup(); err != nil {
			t.Fatal(err)
		}
	}
	rf.s.MEAttach(lnet.MatchSpec{Portal: testPortal, Source: lnet.AnyNID, SourcePID: lnet.LNET_PID_ANY, IgnoreBits: ^uint64(0)},
		lnet.MDSpec{Length: 1 << 20, Threshold: lnet.ThresholdInf, Options: lnet.MD_OP_PUT | lnet.MD_OP_GET, Handler: rf.sink})
	rf.run(t, 2*sim.Second) // router checker pings bring the routes up
	for _, rt := range rf.c.Routes() {
		if rt.State != "up" {
			t.Fatalf("route %+v", rt)
		}
	}
	return rf
}

func (rf *routedFabric) run(t *testing.T, d sim.Time) {
	t.Helper()
	if err := rf.k.RunUntil(rf.k.Now() + d); err != nil {
		t.Fatal(err)
	}
}

// TestRoutedPutGet runs LNet routing over o2iblnd: client 10.0.0.1@o2ib, router
// 10.0.0.2@o2ib + 10.0.1.2@o2ib1, server 10.0.1.3@o2ib1, one switch per net. A 1 MiB PUT and
// a 1 MiB GET complete end to end; the GET goes IMMEDIATE on both hops (kiblnd_send's rule
// for msg_routing / msg_target_is_router), the PUT as PUT_REQ/ACK/DONE on each hop, and the
// ACK and REPLY come from the server.
func TestRoutedPutGet(t *testing.T) {
	rf := newRoutedFabric(t, lnet.DefaultTunables())
	c, rt := rf.c, rf.r
	src := &evRec{k: rf.k}
	rf.obs.posts = nil
	md := c.MDBind(lnet.MDSpec{Length: 1 << 20, Threshold: 2, Handler: src})
	if err := c.Put(lnet.AnyNID, md, lnet.AckReqAck, rf.sNID, testPortal, 7, 0, 0); err != nil {
		t.Fatal(err)
	}
	md = c.MDBind(lnet.MDSpec{Length: 1 << 20, Threshold: 2, Handler: src})
	if err := c.Get(lnet.AnyNID, md, rf.sNID, testPortal, 7, 0); err != nil {
		t.Fatal(err)
	}
	rf.run(t, sim.Second)
	ack, reply := src.last(lnet.EventACK), src.last(lnet.EventREPLY)
	if ack == nil || reply == nil || ack.Status != 0 || reply.Status != 0 || reply.MLength != 1<<20 {
		t.Fatalf("ACK %+v REPLY %+v", ack, reply)
	}
	if ack.Initiator != rf.sNID || reply.Initiator != rf.sNID {
		t.Fatalf("ACK from %s, REPLY from %s: want the server", ack.Initiator, reply.Initiator)
	}
	if rf.obs.posts[MsgGET_REQ] != 0 || rf.obs.posts[MsgPUT_REQ] != 4 {
		// PUT_REQ: the PUT on two hops and the 1 MiB REPLY on two hops.
		t.Fatalf("posts %v: want no GET_REQ and 4 PUT_REQ", rf.obs.posts)
	}
	// Forwarded: the client's discovery ping of the server and its REPLY, the client's push
	// and its ACK, the server's push back and its ACK, then PUT, ACK, GET, REPLY.
	if st := rt.Stats(); st.RouteCount != 10 || st.ResendCount != 0 {
		t.Fatalf("router route_count %d resend_count %d", st.RouteCount, st.ResendCount)
	}
}

// TestRoutedBufferStarvation over o2iblnd: large_router_buffers=4 and 16 concurrent 1 MiB
// PUTs; the router's large pool goes negative (PUT_REQ rxs held by LNet while they wait), and
// every PUT completes, in order.
func TestRoutedBufferStarvation(t *testing.T) {
	rtun := lnet.DefaultTunables()
	rtun.LargeRouterBuffers = 4
	rf := newRoutedFabric(t, rtun)
	src := &evRec{k: rf.k}
	for i := 0; i < 16; i++ {
		md := rf.c.MDBind(lnet.MDSpec{Length: 1 << 20, Threshold: 2, Handler: src})
		if err := rf.c.Put(lnet.AnyNID, md, lnet.AckReqAck, rf.sNID, testPortal, uint64(i), 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	rf.run(t, sim.Second)
	acks := 0
	for _, ev := range src.evs {
		if ev.Type == lnet.EventACK && ev.Status == 0 {
			acks++
		}
	}
	var order []uint64
	for _, ev := range rf.sink.evs {
		if ev.Type == lnet.EventPUT {
			order = append(order, ev.MatchBits)
		}
	}
	if acks != 16 || len(order) != 16 {
		t.Fatalf("%d ACKs, %d PUTs received", acks, len(order))
	}
	for i, b := range order {
		if b != uint64(i) {
			t.Fatalf("PUTs received in order %v", order)
		}
	}
	large := rf.r.RouterPools()[2]
	if large.MinCredits >= 0 || large.Credits != large.NBuffers {
		t.Fatalf("large pool %+v", large)
	}
	t.Logf("large pool %+v", large)
}

// TestRoutedFailover over o2iblnd: the preferred router's links go down; the client's route
// through it goes down within alive_router_check_interval + router_ping_timeout (+ one
// pass), traffic moves to the second router, and returns once the links are back.
func TestRoutedFailover(t *testing.T) {
	tun := lnet.DefaultTunables()
	tun.AliveRouterCheckInt = 10
	tun.RouterPingTimeout = 5
	rf := newRoutedFabricN(t, tun, tun, 2)
	r1, r2 := rf.rs[0], rf.rs[1]
	src := &evRec{k: rf.k}
	put := func() {
		md := rf.c.MDBind(lnet.MDSpec{Length: 1 << 20, Threshold: 2, Handler: src})
		if err := rf.c.Put(lnet.AnyNID, md, lnet.AckReqAck, rf.sNID, testPortal, 0, 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	acks := func() int {
		k := 0
		for _, ev := range src.evs {
			if ev.Type == lnet.EventACK && ev.Status == 0 {
				k++
			}
		}
		return k
	}
	put()
	rf.run(t, sim.Second)
	if acks() != 1 || r1.Stats().RouteCount == 0 || r2.Stats().RouteCount != 0 {
		t.Fatalf("before: %d ACKs, r1 %d r2 %d", acks(), r1.Stats().RouteCount, r2.Stats().RouteCount)
	}
	for _, l := range rf.links[0] {
		l.LinkDown()
	}
	t0 := rf.k.Now()
	for routeVia(rf.c, "10.0.0.2@o2ib") == "up" {
		if rf.k.Now() > t0+sim.Time(tun.AliveRouterCheckInt+tun.RouterPingTimeout+2)*sim.Second {
			t.Fatalf("route via r1 still up %v after its links went down", rf.k.Now()-t0)
		}
		rf.run(t, sim.Second)
	}
	for routeVia(rf.s, "10.0.1.2@o2ib1") == "up" {
		if rf.k.Now() > t0+sim.Time(tun.AliveRouterCheckInt+tun.RouterPingTimeout+3)*sim.Second {
			t.Fatal("server's route via r1 still up")
		}
		rf.run(t, sim.Second)
	}
	b1, b2 := r1.Stats().RouteCount, r2.Stats().RouteCount
	put()
	rf.run(t, sim.Second)
	if acks() != 2 || r1.Stats().RouteCount != b1 || r2.Stats().RouteCount < b2+2 {
		t.Fatalf("during: %d ACKs, r1 %d->%d r2 %d->%d", acks(), b1, r1.Stats().RouteCount, b2, r2.Stats().RouteCount)
	}
	for _, l := range rf.links[0] {
		l.LinkUp()
	}
	t1 := rf.k.Now()
	for routeVia(rf.c, "10.0.0.2@o2ib") != "up" || routeVia(rf.s, "10.0.1.2@o2ib1") != "up" {
		if rf.k.Now() > t1+sim.Time(3*tun.AliveRouterCheckInt)*sim.Second {
			t.Fatal("routes via r1 not back up")
		}
		rf.run(t, sim.Second)
	}
	b1 = r1.Stats().RouteCount
	put()
	rf.run(t, sim.Second)
	if acks() != 3 || r1.Stats().RouteCount < b1+2 {
		t.Fatalf("after: %d ACKs, r1 %d->%d", acks(), b1, r1.Stats().RouteCount)
	}
}

func routeVia(n *lnet.Node, gw string) string {
	for _, r := range n.Routes() {
		if r.Gateway == gw {
			return r.State
		}
	}
	return "?"
}
