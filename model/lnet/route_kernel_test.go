package lnet

import (
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// gwPeerNIStatus returns the cached status of gateway NI gw on node n.
func gwPeerNIStatus(t *testing.T, n *Node, gw string) NIStatus {
	t.Helper()
	lpni := n.PeerNI(nid(gw))
	if lpni == nil {
		t.Fatalf("%s does not know %s", n.Name(), gw)
	}
	return lpni.Status()
}

// gwNet is a client c with a 1-hop route to o2ib1 through router r's first NID and, when
// built with a server, a server s (10.1.0.2@o2ib1) routing back through r's last NID: nodes
// a, b (and c) on one ideal LND, not started.
type gwNet struct {
	k       *sim.Kernel
	l       *IdealLND
	c, r, s *Node
	all     []*Node
}

func newGWNet(t *testing.T, tun Tunables, cNIDs, rNIDs []string, server bool) *gwNet {
	t.Helper()
	k := sim.New(1)
	l := NewIdealLND(k, sim.Microsecond)
	specs := [][]string{cNIDs, rNIDs}
	if server {
		specs = append(specs, []string{"10.1.0.2@o2ib1"})
	}
	g := &gwNet{k: k, l: l, all: mkNodes(t, k, l, tun, specs...)}
	g.c, g.r = g.all[0], g.all[1]
	g.r.SetRouting(true)
	mustRoute(t, g.c, "o2ib1", rNIDs[0], 1, 0)
	if server {
		g.s = g.all[2]
		mustRoute(t, g.s, "o2ib", rNIDs[len(rNIDs)-1], 1, 0)
	}
	return g
}

// start starts every node and runs d.
func (g *gwNet) start(t *testing.T, d sim.Time) {
	t.Helper()
	startAll(t, g.all...)
	runFor(t, g.k, d)
}

// TestGatewayRevivedByTraffic follows lnet_parse: a message that arrives through a gateway
// thought dead revives it and marks its NIs on the source's net UP, so with
// avoid_asym_router_failure the single-hop route through it is up at once, not at the next
// router check (60 s later here).
func TestGatewayRevivedByTraffic(t *testing.T) {
	g := newGWNet(t, DefaultTunables(), []string{"10.0.0.1@o2ib"}, []string{"10.0.0.3@o2ib", "10.1.0.3@o2ib1"}, true)
	k, c, s := g.k, g.c, g.s
	cev, sev := &evRec{}, &evRec{}
	sink(c, cev)
	g.start(t, 2*sim.Second)
	if st := c.Routes()[0].State; st != "up" {
		t.Fatalf("route %s after the first router check", st)
	}
	gw := c.PeerNI(nid("10.0.0.3@o2ib")).peer
	c.rtrPingDone(gw, nil, -ETIMEDOUT) // a router check fails: gateway dead, its NIs DOWN
	if st, s1 := c.Routes()[0].State, gwPeerNIStatus(t, c, "10.1.0.3@o2ib1"); st != "down" || s1 != NIStatusDown {
		t.Fatalf("after the failed check: route %s, gateway's o2ib1 NI %s", st, s1)
	}
	putTo(t, s, "10.0.0.1@o2ib", sev)
	runFor(t, k, 10*sim.Millisecond)
	if cev.count(EventPUT) != 1 {
		t.Fatalf("client got %d PUTs", cev.count(EventPUT))
	}
	if !c.GatewayAlive(nid("10.0.0.3@o2ib")) {
		t.Fatal("gateway not revived by the PUT it forwarded")
	}
	for _, g := range []string{"10.0.0.3@o2ib", "10.1.0.3@o2ib1"} {
		if st := gwPeerNIStatus(t, c, g); st != NIStatusUp {
			t.Fatalf("gateway NI %s %s after the PUT, want up", g, st)
		}
	}
	if st := c.Routes()[0].State; st != "up" {
		t.Fatalf("route %s 10 ms after traffic came through the gateway, want up", st)
	}
	if p := c.Gateways()[0].Pings; p != 1 {
		t.Fatalf("%d router pings, want 1 (the revival is not a router check)", p)
	}
}

// TestRouteAliveBeforeFirstPing follows lnet_is_route_alive: until its gateway is known to be
// multi-rail (its first ping reply), a route's cached lr_alive decides, 1 at creation
// (lnet_add_route) unless check_routers_before_use; so a 1-hop route with
// avoid_asym_router_failure is up before the first router check, then follows the gateway's
// NIs.
func TestRouteAliveBeforeFirstPing(t *testing.T) {
	for _, check := range []bool{false, true} {
		tun := DefaultTunables()
		tun.CheckRoutersBeforeUse = check
		tun.AliveRouterCheckInt = 5
		g := newGWNet(t, tun, []string{"10.0.0.1@o2ib"}, []string{"10.0.0.3@o2ib", "10.1.0.3@o2ib1"}, false)
		k, c, r := g.k, g.c, g.r
		want := "up"
		if check {
			want = "down"
		}
		if st := c.Routes()[0].State; st != want {
			t.Fatalf("check_routers_before_use=%v: 1-hop route %s before the first ping, want %s", check, st, want)
		}
		g.start(t, sim.Second)
		if st := c.Routes()[0].State; st != "up" || !c.PeerNI(nid("10.0.0.3@o2ib")).peer.mr {
			t.Fatalf("check_routers_before_use=%v: route %s after the first ping", check, st)
		}
		r.SetNIFatal(r.NI(nid("10.1.0.3@o2ib1")), true)
		runFor(t, k, 5*sim.Second) // the next check's reply lists the o2ib1 NI DOWN
		if st := c.Routes()[0].State; st != "down" {
			t.Fatalf("check_routers_before_use=%v: route %s with the gateway's remote NI down", check, st)
		}
	}
}

// TestPeersStartDown follows lnet_peer_ni_alloc: with check_routers_before_use
// (lnet_peers_start_down) every new peer NI starts DOWN, not only a gateway's; a message
// from it marks it UP (lnet_parse).
func TestPeersStartDown(t *testing.T) {
	for _, check := range []bool{false, true} {
		k := sim.New(1)
		l := NewIdealLND(k, sim.Microsecond)
		tun := DefaultTunables()
		tun.CheckRoutersBeforeUse = check
		ns := mkNodes(t, k, l, tun, []string{"10.0.0.1@o2ib"}, []string{"10.0.0.2@o2ib"})
		a, b := ns[0], ns[1]
		startAll(t, ns...)
		want := NIStatusUp
		if check {
			want = NIStatusDown
		}
		if st := a.nid2peerni(nid("10.0.0.2@o2ib")).Status(); st != want {
			t.Fatalf("check_routers_before_use=%v: new peer NI %s, want %s", check, st, want)
		}
		sink(a, &evRec{})
		putTo(t, b, "10.0.0.1@o2ib", &evRec{})
		runFor(t, k, sim.Second)
		if st := a.PeerNI(nid("10.0.0.2@o2ib")).Status(); st != NIStatusUp {
			t.Fatalf("check_routers_before_use=%v: peer NI %s after a message from it", check, st)
		}
	}
}

// TestRouterCheckPushes follows lnet_check_routers (LNET_PEER_FORCE_PUSH on every check) and
// sanity-lnet 236: each router check pushes the client's ping buffer to the gateway, so the
// router learns the client is multi-rail with two NIs, sees one of them DOWN while it is
// fatal (still DOWN after two more checks) and UP again once it recovers.
func TestRouterCheckPushes(t *testing.T) {
	tun := DefaultTunables()
	tun.AliveRouterCheckInt = 5
	g := newGWNet(t, tun, []string{"10.0.0.1@o2ib", "10.0.1.1@o2ib"}, []string{"10.0.0.3@o2ib", "10.1.0.3@o2ib1"}, false)
	k, c, r := g.k, g.c, g.r
	g.start(t, sim.Second)
	view := func(s string) NIStatus {
		t.Helper()
		lpni := r.PeerNI(nid(s))
		if lpni == nil {
			t.Fatalf("at %v the router does not know %s", k.Now(), s)
		}
		return lpni.Status()
	}
	lp := r.PeerNI(nid("10.0.0.1@o2ib"))
	if lp == nil || !lp.peer.MultiRail() || len(lp.peer.NIs()) != 2 || lp.peer != r.PeerNI(nid("10.0.1.1@o2ib")).peer {
		t.Fatal("after the first check the router does not know the client as one multi-rail peer with 2 NIs")
	}
	c.SetNIFatal(c.NI(nid("10.0.1.1@o2ib")), true)
	runFor(t, k, 11*sim.Second) // two more checks
	if a, b := view("10.0.0.1@o2ib"), view("10.0.1.1@o2ib"); a != NIStatusUp || b != NIStatusDown {
		t.Fatalf("router's view with the client's second NI fatal: %s %s, want up down", a, b)
	}
	if p := c.Gateways()[0].Pings; p != 3 {
		t.Fatalf("%d router checks, want 3", p)
	}
	c.SetNIFatal(c.NI(nid("10.0.1.1@o2ib")), false)
	runFor(t, k, 5*sim.Second)
	if a, b := view("10.0.0.1@o2ib"), view("10.0.1.1@o2ib"); a != NIStatusUp || b != NIStatusUp {
		t.Fatalf("router's view after recovery: %s %s, want up up", a, b)
	}
}

// TestNotifyKernelRules follows lnet_notify: (1) old news (the status a previous report
// set) changes nothing, so a second "alive, reset" does not reset health; (2) an LND's
// "down" counts from no earlier than the last time the peer NI was heard from, so a later
// report dated before that is out of date; (3) with discovery off, an LND's "down" from a
// local NI that is not the healthiest on its net (lnet_local_ni_superseded) leaves the
// route through that gateway NID up, while one from the healthiest NI takes it down.
func TestNotifyKernelRules(t *testing.T) {
	tun := DefaultTunables()
	tun.Discovery = false
	g := newGWNet(t, tun, []string{"10.0.0.1@o2ib", "10.0.1.1@o2ib"}, []string{"10.0.0.3@o2ib", "10.1.0.3@o2ib1"}, false)
	k, c := g.k, g.c
	g.start(t, 5*sim.Second)
	gw := nid("10.0.0.3@o2ib")
	lpni := c.PeerNI(gw)
	ni0, ni1 := c.NI(nid("10.0.0.1@o2ib")), c.NI(nid("10.0.1.1@o2ib"))

	// (1) old news
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.Notify(ni0, gw, true, true, k.Now()))
	c.setPeerHealth(lpni, 500, CauseManual)
	must(c.Notify(ni0, gw, true, true, k.Now()))
	if h := lpni.Health(); h != 500 {
		t.Fatalf("health %d after a second alive+reset report, want 500 (old news)", h)
	}

	// (3) superseded local NI: ni0 less healthy than ni1
	c.setNIHealth(ni0, 900, CauseManual)
	must(c.Notify(ni0, gw, false, false, k.Now()))
	if st, s := c.Routes()[0].State, lpni.Status(); st != "up" || s != NIStatusDown {
		t.Fatalf("down from the superseded NI: route %s, peer NI %s; want up, down", st, s)
	}
	must(c.Notify(ni1, gw, false, false, k.Now()))
	if st := c.Routes()[0].State; st != "down" {
		t.Fatalf("down from the healthiest NI: route %s, want down", st)
	}

	// (2) clamped to lpni_last_alive: heard from at the last router check (t = 0)
	runFor(t, k, 60*sim.Second) // the router check at 60 s: heard from again
	heard := lpni.lastAlive
	if heard != 60*sim.Second+2*sim.Microsecond {
		t.Fatalf("last heard from at %v", heard)
	}
	must(c.Notify(ni1, gw, false, false, heard-sim.Second))
	if s := lpni.Status(); s != NIStatusDown {
		t.Fatalf("peer NI %s after a down report", s)
	}
	must(c.Notify(ni1, gw, true, false, heard-sim.Millisecond))
	if s := lpni.Status(); s != NIStatusDown {
		t.Fatalf("peer NI %s after an alive report dated before the down one's clamped time, want down", s)
	}
}

// TestRouterCreditsQueuePerPeer follows lnet_post_routed_recv_locked and
// lnet_return_rx_credits_locked: router credits are per peer NI (peer_buffer_credits 1
// here), but a message short of one waits on its peer's lp_rtrq, and any of the peer's NIs
// returning a credit releases the head of that queue. The multi-rail client sends one PUT
// from NI A and two from NI B; the router holds B's forwards 10 ms each. B's second PUT
// is released when A's PUT is forwarded (microseconds), not when B's first is (10 ms), so
// all three reach the server within 15 ms.
func TestRouterCreditsQueuePerPeer(t *testing.T) {
	tun := DefaultTunables()
	tun.PeerBufferCredits = 1 // on the router: one router credit per peer NI
	g := newGWNet(t, tun, []string{"10.0.0.1@o2ib", "10.0.1.1@o2ib"}, []string{"10.0.0.3@o2ib", "10.1.0.3@o2ib1"}, true)
	k, l, c, r := g.k, g.l, g.c, g.r
	sev := &evRec{}
	sink(g.s, sev)
	g.start(t, sim.Second) // the router check's push: the router knows the client's two NIs
	a, b := nid("10.0.0.1@o2ib"), nid("10.0.1.1@o2ib")
	if r.PeerNI(a).peer != r.PeerNI(b).peer {
		t.Fatal("the router does not see the client's NIs as one peer")
	}
	l.Hook = func(m *Msg) IdealVerdict {
		if m.Node() == r && m.Hdr.Type == MsgPUT && m.Hdr.Src == b {
			return IdealVerdict{Delay: 10 * sim.Millisecond}
		}
		return IdealVerdict{}
	}
	cev := &evRec{}
	for _, src := range []NID{b, b, a} {
		md := c.MDBind(MDSpec{Length: 1000, Threshold: 2, Handler: cev})
		if err := c.Put(src, md, AckReqAck, nid("10.1.0.2@o2ib1"), testPortal, 0, 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	runFor(t, k, 15*sim.Millisecond)
	if n := sev.count(EventPUT); n != 3 {
		t.Fatalf("server got %d PUTs within 15 ms, want 3", n)
	}
	if ca, cb := r.PeerNI(a).rtrCredits, r.PeerNI(b).rtrCredits; ca != 1 || cb != 1 {
		t.Fatalf("router credits A %d B %d after all forwards, want 1 1", ca, cb)
	}
	if m := r.PeerNI(b).minRtrCredits; m != -1 {
		t.Fatalf("B's min router credits %d, want -1", m)
	}
}

// TestRouterCheckPingFromAnyNI follows lnet_check_routers and lnet_send_ping: the router
// check pings the gateway's primary NID with no source NID, so when its GET fails on the
// client's broken NI A the resend selects again and leaves from NI B: no check fails and
// the gateway stays alive: over 7 checks, 3 start on A (A's health recovers between them)
// and each is resent from B. (Pinned to A, as before, those 3 checks failed all 3 attempts
// each and took the gateway down.)
func TestRouterCheckPingFromAnyNI(t *testing.T) {
	tun := DefaultTunables()
	tun.AliveRouterCheckInt = 5
	g := newGWNet(t, tun, []string{"10.0.0.1@o2ib", "10.0.1.1@o2ib"}, []string{"10.0.0.3@o2ib", "10.0.1.3@o2ib", "10.1.0.3@o2ib1"}, false)
	k, l, c, r := g.k, g.l, g.c, g.r
	g.start(t, sim.Second)
	a := nid("10.0.0.1@o2ib")
	failed := 0
	l.Hook = func(m *Msg) IdealVerdict {
		if m.Node() == c && m.Hdr.Type == MsgGET && m.Hdr.Src == a && r.isLocalNID(m.Target()) {
			failed++
			return IdealVerdict{Action: IdealFail, HStatus: LNET_MSG_STATUS_LOCAL_DROPPED}
		}
		return IdealVerdict{}
	}
	runFor(t, k, 30*sim.Second)
	gs := c.Gateways()[0]
	if gs.Pings != 7 || gs.PingFails != 0 || !gs.Alive || gs.RoutesUp != 1 || failed != 3 || c.Stats().ResendCount != 3 {
		t.Fatalf("pings %d failed %d alive %v routes up %d; GETs failed on A %d, resends %d; want 7 0 true 1, 3, 3",
			gs.Pings, gs.PingFails, gs.Alive, gs.RoutesUp, failed, c.Stats().ResendCount)
	}
}
